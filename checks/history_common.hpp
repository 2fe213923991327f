// Counters judged as an increase between two readings (docs/fleet.md, "History"): today's facts against the
// newest report `check --history` kept (facts/history_facts.hpp). Counts since boot (or since the driver
// loaded) compare only within one boot; a count that dropped was reset (a driver reload, a GPU reset), so
// all of today's count is new.
#pragma once

#include "engine/check.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor::checks {

// The kept report's counters of the GPU whose bus id the report wrote as `bus_id` (nvidia-smi's for its
// counters, sysfs's for amdgpu's), when there is a previous reading.
const PreviousGpuCounters* previous_counters(const Facts& f, std::string_view bus_id);

// How much a count grew since the previous reading: nullopt when either side is unknown.
std::optional<long long> growth(std::optional<long long> now, std::optional<long long> before);

// How this boot's event group `e` grew since the previous reading, when it was taken in this boot (nullopt
// otherwise: an event of the previous boot, no reading, or another boot). A group the reading did not hold
// had no line then.
struct EventGrowth {
  std::size_t before = 0; // lines of the group then
  std::size_t fresh = 0;  // lines since
};
std::optional<EventGrowth> event_growth(const Facts& f, const KernelEvent& e);
// " None new since the last kept report (...)." / " 2 new since ...": for a message; empty without a reading.
std::string event_growth_words(const Facts& f, const std::optional<EventGrowth>& g);

// "the last kept report (2026-12-05T05:49:47Z)": how messages name the previous reading.
std::string previous_words(const Facts& f);
// "history: 20261205T054947.123456Z-ok.json (kept 2026-12-05T05:49:47Z, gpudoctor 0.1.0): <what>": the
// evidence line of a comparison.
std::string previous_evidence(const Facts& f, const std::string& what);

} // namespace gpudoctor::checks
