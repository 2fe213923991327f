// The text outputs' terminal edge (check, probe, fix, migrate, fleet, diff): wrapped to the terminal's width
// with hanging indents kept, coloured when the mode and the environment allow. A pipe or a file gets the
// text as rendered, unwrapped, uncoloured unless --color always.
#pragma once

#include "app/commands.hpp"

#include <string>
#include <string_view>

namespace gpudoctor {

// Writes `text` to stdout, wrapped to its width when stdout is a terminal (system/terminal.hpp).
void print_fitted(std::string_view text);

// Whether text for stdout is coloured: --color always; or automatic, stdout a terminal (not a file given by
// --output) and the environment allowing it (NO_COLOR, TERM=dumb).
bool use_color(ColorMode mode, const std::string& output);

} // namespace gpudoctor
