// Where `fleet` and `diff` write what they render: stdout, or a file replaced atomically (-o); and whether
// their text is coloured.
#pragma once

#include "app/commands.hpp"

#include <string>

namespace gpudoctor {

// Colour on a terminal without NO_COLOR (never into a file), or when asked.
bool use_color(ColorMode mode, const std::string& output);

// Prints `content`, or replaces the file `output` with it; false, after saying why, when it cannot.
bool emit(const std::string& content, const std::string& output);

} // namespace gpudoctor
