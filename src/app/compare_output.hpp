// Where `fleet` and `diff` write what they render: stdout, or a file replaced atomically (-o).
#pragma once

#include "app/commands.hpp"
#include "util/diagnostics.hpp"

#include <expected>
#include <string>

namespace gpudoctor {

// Prints `content` (wrapped to a terminal's width when `text`), or replaces the file `output` with it; fails
// (exit 2) when it cannot. What stdout could not take main says, once (it flushes stdout last).
std::expected<void, Failure> emit(const std::string& content, const std::string& output, bool text);

} // namespace gpudoctor
