// Test helpers for the parser tests: reading samples from tests/data (whole, with testutil's slurp).
#pragma once

#include "unit/testutil.hpp"

#include <filesystem>
#include <string>

namespace gpudoctor::test {

inline std::filesystem::path data_path(const std::string& relative) {
  return std::filesystem::path(GPUDOCTOR_TEST_DATA) / relative;
}

inline std::string realdata(const std::string& name) {
  return slurp(data_path("realdata/" + name));
}

} // namespace gpudoctor::test
