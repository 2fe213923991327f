// Where `fleet` and `diff` write what they render: stdout, or a file replaced atomically (-o); and whether
// their text is coloured.
#pragma once

#include "app/commands.hpp"
#include "util/diagnostics.hpp"

#include <expected>
#include <string>

namespace gpudoctor {

// Colour on a terminal without NO_COLOR (never into a file), or when asked.
bool use_color(ColorMode mode, const std::string& output);

// Prints `content`, or replaces the file `output` with it; fails (exit 2) when it cannot. What stdout could
// not take main says, once (it flushes stdout last).
std::expected<void, Failure> emit(const std::string& content, const std::string& output);

} // namespace gpudoctor
