// Which temporary folders a run of gpudoctor may remove as a dead run's (docs/security.md, "Processes"): only
// those it can prove are its own kind and that their maker is gone.
#include "system/temp_files.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_SUITE("security") {
  TEST_CASE("a temporary folder is stale only when its run is provably dead") {
    const std::string boot = "06e377ff436e4c95b5d7e3441f88d623";
    auto alive_1804 = [](int pid) -> std::optional<unsigned long long> {
      if (pid == 1804) return 238632ull;
      return std::nullopt;
    };
    // The run that made it is alive (same pid, same start time, this boot): kept.
    CHECK_FALSE(
        temp::is_stale_name("gpudoctor-bundle-1804-238632-06e377ff436e4c95-AQpvmn", boot, alive_1804));
    // Its pid is gone, or now names a later process, or it was made in another boot: removed.
    CHECK(temp::is_stale_name("gpudoctor-bundle-1805-238632-06e377ff436e4c95-AQpvmn", boot, alive_1804));
    CHECK(temp::is_stale_name("gpudoctor-bundle-1804-100-06e377ff436e4c95-AQpvmn", boot, alive_1804));
    CHECK(temp::is_stale_name("gpudoctor-bundle-1804-238632-0123456789abcdef-AQpvmn", boot, alive_1804));
    CHECK(
        temp::is_stale_name("gpudoctor-snapshot-1805-1-06e377ff436e4c95-AQpvmn.removing", boot, alive_1804));
    // Anything not of that shape is never touched: older gpudoctors' names, other programs', odd names.
    for (const char* name : {"gpudoctor-bundle-AQpvmn", "gpudoctor-e2e.abcdef", "gpudoctor-cache-0",
                             "gpudoctor-bundle-x-1-06e377ff436e4c95-AQpvmn", "other-bundle-1805-1-0-AQpvmn",
                             "gpudoctor-bundle-1805-238632-06e377ff436e4c95-abc",
                             "gpudoctor-bundle-99999999999-1-06e377ff436e4c95-AQpvmn"})
      CHECK_MESSAGE(!temp::is_stale_name(name, boot, alive_1804), name);
  }
}
