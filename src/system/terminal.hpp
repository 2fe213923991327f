// What gpudoctor knows of the terminal it writes to: whether a descriptor is one, how wide it is, and whether
// the environment lets text be coloured. A pipe or a file is no terminal: nothing is wrapped or coloured
// there.
#pragma once

#include <cstddef>

namespace gpudoctor::terminal {

// Whether `fd` is a terminal.
bool is_terminal(int fd);

// The width to wrap text written to `fd` at: the terminal's (TIOCGWINSZ), else COLUMNS when it is a number
// from 20 to 1000; 0 (do not wrap) when `fd` is no terminal or neither says.
std::size_t columns(int fd);

// Whether the environment allows colour: NO_COLOR unset or empty (no-color.org) and TERM not "dumb" (a
// terminal that has said it takes no escape sequences: Emacs' shell, some CI consoles).
bool colour_allowed();

} // namespace gpudoctor::terminal
