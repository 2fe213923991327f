// The snapshot fuzz targets (fuzz/snapshot_targets.hpp) in every ordinary build: each reader over the test
// machines' files, their truncations and byte flips, and garbage; the unpacker over real bundles written by
// pack_tar_gz, cut and flipped. No crash, no exception, no broken invariant (docs/fuzzing.md).
#include "fuzz/snapshot_targets.hpp"
#include "unit/testutil.hpp"
#include "util/archive.hpp"
#include "util/file_text.hpp"

#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

std::uint64_t g_state = 11;
std::uint64_t next() {
  g_state = g_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return g_state >> 33;
}

// The input, cuts of it and copies with bytes overwritten.
std::vector<std::string> variants(const std::string& s) {
  std::vector<std::string> out{s};
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, s.size() / 3, s.size() / 2, s.size() - s.size() / 5})
    if (n < s.size()) out.push_back(s.substr(0, n));
  for (int i = 0; i < 6 && !s.empty(); ++i) {
    std::string m = s;
    for (int j = 0; j < 8; ++j)
      m[next() % m.size()] = static_cast<char>(next() & 0xff);
    out.push_back(std::move(m));
  }
  return out;
}

std::string failures(std::string_view input, bool archives) {
  std::string failed;
  for (const auto& t : fuzz::k_snapshot_targets) {
    if ((std::string_view(t.name) == "unpack_archive") != archives) continue;
    try {
      t.run(input);
    } catch (const std::exception& e) {
      failed += std::string(t.name) + ": " + e.what() + "; ";
    }
  }
  return failed;
}

std::vector<std::string> garbage() {
  std::vector<std::string> out = {"",
                                  "{",
                                  "[",
                                  std::string(100000, '['),
                                  std::string(100000, '{'),
                                  std::string(5000, '\0'),
                                  "\x1f\x8b\x08",
                                  "BZh91AY&SY",
                                  "\xfd"
                                  "7zXZ"};
  std::string bytes(4096, '\0');
  for (auto& c : bytes)
    c = static_cast<char>(next() & 0xff);
  out.push_back(bytes);
  return out;
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("snapshot fuzz targets: the machines' files, their variants and garbage") {
    std::size_t files = 0;
    for (const auto& machine : fs::directory_iterator(fs::path(GPUDOCTOR_TEST_MACHINES))) {
      for (const char* name : {"manifest.json", "env.json", "identity.json", "stat.json", "commands.json"}) {
        auto text = read_whole_file(machine.path() / "snapshot" / name);
        if (!text) continue;
        ++files;
        std::string where = machine.path().filename().string() + "/" + name;
        CAPTURE(where);
        for (const auto& v : variants(*text))
          CHECK(failures(v, false) == "");
      }
    }
    CHECK(files >= 50);
    for (const auto& g : garbage())
      CHECK(failures(g, false) == "");
  }

  TEST_CASE("snapshot fuzz targets: the unpacker over real bundles, cut and flipped") {
    test::TempDir dir("gpudoctor-fuzz-bundles");
    int packed = 0;
    for (const char* machine : {"amd-user-not-in-render", "nvidia-rtx3090-healthy"}) {
      fs::path out = dir / (std::string(machine) + ".tar.gz");
      REQUIRE(pack_tar_gz(fs::path(GPUDOCTOR_TEST_MACHINES) / machine / "snapshot", out));
      auto bytes = read_whole_file(out);
      REQUIRE(bytes);
      ++packed;
      for (const auto& v : variants(*bytes))
        CHECK(failures(v, true) == "");
    }
    CHECK(packed == 2);
    for (const auto& g : garbage())
      CHECK(failures(g, true) == "");
  }
}
