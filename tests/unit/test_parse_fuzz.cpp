// Every parser over every sample, its truncations and mutations, and garbage: no crash, no exception, no
// broken invariant. The parsers and their invariants are the libFuzzer table (fuzz/parser_targets.hpp).
#include "fuzz/parser_targets.hpp"
#include "unit/test_parse_util.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// Deterministic pseudo-random numbers (64-bit LCG), so a failure reproduces.
struct Lcg {
  std::uint64_t state;
  std::uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
};

std::string random_bytes(Lcg& rng, std::size_t n, bool printable) {
  static constexpr std::string_view k_alphabet = "<>/:|= \t\n\r\"'abcgfxNameGPU0123456789.-_#";
  std::string out(n, '\0');
  for (auto& c : out)
    c = printable ? k_alphabet[rng.next() % k_alphabet.size()] : static_cast<char>(rng.next() & 0xff);
  return out;
}

// The sample cut at several lengths, and copies with a few bytes overwritten.
std::vector<std::string> variants(const std::string& sample, Lcg& rng) {
  std::vector<std::string> out{sample};
  std::vector<std::size_t> cuts = {
      0, 1, 2, 3, 5, 8, 13, 32, 100, sample.size() / 3, sample.size() / 2, sample.size() * 2 / 3};
  if (!sample.empty()) cuts.push_back(sample.size() - 1);
  for (int i = 0; i < 8 && !sample.empty(); ++i)
    cuts.push_back(rng.next() % sample.size());
  for (auto n : cuts)
    if (n < sample.size()) out.push_back(sample.substr(0, n));
  for (int i = 0; i < 4 && !sample.empty(); ++i) {
    std::string m = sample;
    for (int j = 0; j < 16; ++j)
      m[rng.next() % m.size()] = static_cast<char>(rng.next() & 0xff);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> garbage() {
  Lcg rng{42};
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t n : {1, 7, 64, 4096, 65536}) {
    out.emplace_back("random bytes " + std::to_string(n), random_bytes(rng, n, false));
    out.emplace_back("random tokens " + std::to_string(n), random_bytes(rng, n, true));
  }
  out.emplace_back("one 2 MB line", std::string(2 << 20, 'A'));
  out.emplace_back("NUL bytes", std::string(1000, '\0'));
  out.emplace_back("carriage returns", std::string(1000, '\r'));
  out.emplace_back("newlines", std::string(100000, '\n'));
  std::string deep, closes, lts, names, bars, defines, gpus;
  for (int i = 0; i < 100000; ++i)
    deep += "<a>";
  for (int i = 0; i < 20000; ++i)
    closes += "</gpu>";
  lts = std::string(50000, '<');
  std::string stray; // a '<' that starts no tag, far from any '>': must stay linear
  for (int i = 0; i < 100000; ++i)
    stray += "< ";
  stray += '>';
  for (int i = 0; i < 20000; ++i)
    names += "  Name: gfx1100\n  Node: 99999999999999999999\n";
  for (int i = 0; i < 20000; ++i)
    bars += "|   0  X  On  | 00000000:01:00.0 Off |\n";
  for (int i = 0; i < 20000; ++i)
    defines += "#define NCCL_MAJOR 99999999999999999999999\n";
  for (int i = 0; i < 20000; ++i)
    gpus += "<gpu id=\"x\"><product_name>&amp;&amp;</product_name>";
  out.emplace_back("deep nesting", deep);
  out.emplace_back("unmatched end tags", closes);
  out.emplace_back("lone <", lts);
  out.emplace_back("stray < before a far >", stray);
  out.emplace_back("agent names", names);
  out.emplace_back("table rows", bars);
  out.emplace_back("defines", defines);
  out.emplace_back("unclosed gpus", gpus);
  out.emplace_back("truncated tag", "<nvidia_smi_log><gpu id=\"0000");
  out.emplace_back("truncated comment", "<!-- <driver_version>1.2</driver_version>");
  out.emplace_back("truncated entity", "<driver_version>&am");
  return out;
}

std::vector<std::filesystem::path> sample_files() {
  std::vector<std::filesystem::path> out;
  for (const char* dir : {"realdata", "parse"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(test::data_path(dir), ec))
      if (e.is_regular_file()) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs every parser over `input`; returns the names of those that threw.
std::string failures(std::string_view input) {
  std::string failed;
  for (const auto& p : fuzz::k_targets) {
    try {
      p.run(input);
    } catch (const std::exception& e) {
      failed += std::string(p.name) + ": " + e.what() + "; ";
    } catch (...) {
      failed += std::string(p.name) + "; ";
    }
  }
  return failed;
}

} // namespace

TEST_CASE("parse: every parser survives every sample, its truncations and garbage") {
  auto files = sample_files();
  CHECK(files.size() >= 45);
  Lcg rng{7};
  for (const auto& file : files) {
    std::string path = file.string();
    CAPTURE(path);
    std::string sample = test::slurp(file);
    CHECK_FALSE(sample.empty());
    auto vs = variants(sample, rng);
    for (std::size_t i = 0; i < vs.size(); ++i) {
      CAPTURE(i);
      CHECK(failures(vs[i]) == "");
    }
  }
  for (const auto& [name, input] : garbage()) {
    CAPTURE(name);
    CHECK(failures(input) == "");
  }
}
