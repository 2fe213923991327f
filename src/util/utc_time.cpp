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

} // namespace gpudoctor::utc
