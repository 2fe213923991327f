#include "util/utc_time.hpp"

namespace gpudoctor::utc {

std::tm fields(std::time_t t) {
  std::tm tm{};
  if (::gmtime_r(&t, &tm) == nullptr) return std::tm{};
  return tm;
}

std::string format(std::time_t t, const char* format) {
  std::tm tm = fields(t);
  char buf[64];
  std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

std::string iso8601(std::time_t t) {
  return format(t, "%Y-%m-%dT%H:%M:%SZ");
}

std::string now_iso8601() {
  return iso8601(std::time(nullptr));
}

std::optional<std::time_t> parse_iso8601(std::string_view s) {
  // 2026-12-04T17:42:22Z: digits at every place but these.
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      s[19] != 'Z')
    return std::nullopt;
  auto number = [&](std::size_t at, std::size_t len) -> int {
    int n = 0;
    for (std::size_t i = at; i < at + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      n = n * 10 + (s[i] - '0');
    }
    return n;
  };
  std::tm tm{};
  tm.tm_year = number(0, 4) - 1900;
  tm.tm_mon = number(5, 2) - 1;
  tm.tm_mday = number(8, 2);
  tm.tm_hour = number(11, 2);
  tm.tm_min = number(14, 2);
  tm.tm_sec = number(17, 2);
  if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 60)
    return std::nullopt;
  std::time_t t = ::timegm(&tm);
  // timegm normalises 31 February into March: such a text is no time.
  if (t == static_cast<std::time_t>(-1) || iso8601(t) != s) return std::nullopt;
  return t;
}

} // namespace gpudoctor::utc
