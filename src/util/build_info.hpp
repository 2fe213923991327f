// What this gpudoctor is: its version, the git commit it was built from and the build date, for
// `--version` and a bundle's manifest. The values live in one generated file (cmake/build_info.cmake), so a
// new commit recompiles that file alone.
#pragma once

#include <string>

namespace gpudoctor::build_info {

extern const char* const version; // "0.1.0"
extern const char* const commit;  // "7ad7ef0a1b2c", "7ad7ef0a1b2c-dirty", "unknown" (no git checkout)
extern const char* const date;    // "2026-12-04": SOURCE_DATE_EPOCH's, else the commit's; "unknown"

// "gpudoctor 0.1.0 (commit 7ad7ef0a1b2c, built 2026-12-04)".
std::string describe();

} // namespace gpudoctor::build_info
