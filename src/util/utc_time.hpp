// Timestamps in UTC, the one place that turns a time into calendar fields (gmtime_r: std::gmtime shares one
// buffer between threads, and the collectors and the fix engine run on several).
#pragma once

#include <ctime>
#include <string>

namespace gpudoctor::utc {

// The calendar fields of `t` in UTC (all zero if the time cannot be represented).
std::tm fields(std::time_t t);
// `t` in UTC as strftime's `format` writes it; empty if it writes nothing.
std::string format(std::time_t t, const char* format);
// `t` as ISO 8601 in UTC: 2026-12-04T17:42:22Z.
std::string iso8601(std::time_t t);
// Now, as iso8601 writes it.
std::string now_iso8601();

} // namespace gpudoctor::utc
