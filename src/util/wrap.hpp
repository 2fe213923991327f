// Wrapping text for a terminal of a given width, with each line's hanging indent kept: the continuation of an
// evidence line ("· ...") or a fix line ("→ ...") starts under its text, that of a "✗ error  Title" line or a
// "GPUs        gpu0 ..." row under the column after the double space. Pure: the caller decides whether its
// output is a terminal (system/terminal.hpp) and its width.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpudoctor {

// Columns `s` takes on a terminal: one per UTF-8 code point, two for an East Asian wide or fullwidth one (a
// Chinese user name in a path), none for a combining mark or an escape sequence (ESC [ ... final).
std::size_t display_width(std::string_view s);

// `text` with every line longer than `width` broken at spaces. A word longer than the room it has (an id, a
// path, a command) is never split: it goes whole onto a line of its own. Width 0: `text` as it is.
std::string wrap_to_width(std::string_view text, std::size_t width);

// One line (no newline in it) wrapped as wrap_to_width does, its continuations indented by `hang` columns
// (at most half the width): gpudoctor's own messages, "gpudoctor: ..." continued under four spaces.
std::string wrap_line_with_hang(std::string_view line, std::size_t width, std::size_t hang);

// One line of plain text (no escape sequences) cut to at most `width` columns, "…" for what was cut: a
// progress line, which must stay one terminal line to be erased. Width 0: `text` as it is.
std::string cut_to_width(std::string_view text, std::size_t width);

} // namespace gpudoctor
