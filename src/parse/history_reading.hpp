// The summary `history-previous` (docs/snapshot.md): the counters of the newest report a node's history
// keeps, as gpudoctor wrote them. A replay reads it from a stranger's snapshot: a pure function of the text
// that never throws and survives any input (fuzzed); what is malformed is dropped. No <expected> here
// (docs/fuzzing.md).
#pragma once

#include "facts/history_facts.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace gpudoctor::parse {

// What one summary may hold: a machine has at most a few hundred GPUs and a report some hundred event groups.
inline constexpr std::size_t k_max_reading_rows = 4096;
inline constexpr std::size_t k_max_reading_ras_blocks = 64;
inline constexpr std::size_t k_max_reading_links = 64; // NVLinks of a GPU (NVLink 5 has 18)

// The reading, or nothing when the text is no such object or names no report. A count that is not a whole
// number of at least 0 is unknown; an event of a kind the summary does not count (xid, sxid) is dropped.
std::optional<PreviousReading> previous_reading(std::string_view text);

} // namespace gpudoctor::parse
