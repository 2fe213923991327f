// util/utc_time: the one conversion of a time to calendar fields, in UTC whatever the zone.
#include "util/utc_time.hpp"

#include <cstdlib>
#include <future>
#include <vector>

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_CASE("utc: a time is written in UTC, whatever TZ says") {
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  ::setenv("TZ", "Pacific/Kiritimati", 1); // UTC+14: a local-time slip shows as another day
  ::tzset();
  CHECK(utc::iso8601(1764877342) == "2025-12-04T19:42:22Z");
  CHECK(utc::format(1764877342, "%Y%m%dT%H%M%SZ") == "20251204T194222Z");
  CHECK(utc::fields(0).tm_year == 70);
  CHECK(utc::format(0, "") == "");
  if (old)
    ::setenv("TZ", saved.c_str(), 1);
  else
    ::unsetenv("TZ");
  ::tzset();
}

TEST_CASE("utc: threads converting at once each get their own time") {
  // With std::gmtime's one shared buffer a thread could read another's fields; gmtime_r gives each its own.
  std::vector<std::future<bool>> runs;
  for (int i = 0; i < 8; ++i)
    runs.push_back(std::async(std::launch::async, [i] {
      std::time_t t = 1764877342 + 86400LL * 400 * i; // 2025-12-04, then every 400 days
      bool same = true;
      std::string first = utc::iso8601(t);
      for (int n = 0; n < 5000; ++n)
        same = same && utc::iso8601(t) == first;
      return same && first.size() == 20;
    }));
  for (auto& r : runs)
    CHECK(r.get());
}

TEST_CASE("utc: parse_iso8601 reads back what iso8601 writes, and nothing else") {
  CHECK(utc::parse_iso8601("2025-12-04T19:42:22Z") == 1764877342);
  CHECK(utc::parse_iso8601(utc::iso8601(0)) == 0);
  for (const char* bad :
       {"", "2025-12-04 19:42:22Z", "2025-12-04T19:42:22", "2025-02-31T00:00:00Z", "2025-13-01T00:00:00Z",
        "1969-12-31T23:59:59Z", "2025-12-04T24:00:00Z", "2025-1a-04T19:42:22Z", "2025-12-04T19:42:22Z "})
    CHECK_FALSE(utc::parse_iso8601(bad));
}
