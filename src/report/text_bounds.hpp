// Text that must fit a reader's limit (a metrics label, node-problem-detector's message): cut on a UTF-8
// character boundary, and never silently: what was cut is marked.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpudoctor {

// The longest prefix of `s` of at most `max_bytes` bytes that does not end inside a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

// `s` when it fits `max_bytes`; else a prefix, "…" and a short hash of the whole, in `max_bytes` at most,
// so that two long values that share a prefix stay two values. `max_bytes` must leave room for the mark
// (at least 16).
std::string bounded(std::string_view s, std::size_t max_bytes);

} // namespace gpudoctor
