// Timestamps in UTC, the one place that turns a time into calendar fields (gmtime_r: std::gmtime shares one
// buffer between threads, and the collectors and the fix engine run on several).
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor::utc {

// The calendar fields of `t` in UTC (all zero if the time cannot be represented).
std::tm fields(std::time_t t);
// `t` in UTC as strftime's `format` writes it; empty if it writes nothing.
std::string format(std::time_t t, const char* format);
// `t` as ISO 8601 in UTC: 2026-12-04T17:42:22Z.
std::string iso8601(std::time_t t);
// Now, as iso8601 writes it.
std::string now_iso8601();
// The time iso8601 wrote (exactly that form, years 1970-9999); nullopt for anything else.
std::optional<std::time_t> parse_iso8601(std::string_view text);

} // namespace gpudoctor::utc
