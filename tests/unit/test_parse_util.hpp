// Test helpers for the parser tests: reading samples from tests/data.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpudoctor::test {

inline std::filesystem::path data_path(const std::string& relative) {
  return std::filesystem::path(GPUDOCTOR_TEST_DATA) / relative;
}

// The whole file, byte for byte; empty when it cannot be read (the caller's CHECKs then fail).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string realdata(const std::string& name) {
  return read_file(data_path("realdata/" + name));
}

} // namespace gpudoctor::test
