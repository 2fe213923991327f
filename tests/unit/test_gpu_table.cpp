// The GPU table compiled into gpudoctor (src/knowledge/gpu_table_data.cpp) against the extracted rows it is
// generated from (checks/knowledge/gen/gpu_rows.tsv), and lookups through it.
#include "knowledge/gpu_table.hpp"
#include "knowledge/knowledge.hpp"
#include "testutil.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <map>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

using test::kb;

struct RowsFile {
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::string> sources;
  std::vector<std::string> upstream;
};

RowsFile rows_file() {
  auto text = read_whole_file(GPUDOCTOR_SOURCE_DIR "/checks/knowledge/gen/gpu_rows.tsv");
  REQUIRE(text.has_value());
  RowsFile out;
  for (const auto& line : text::lines(*text)) {
    if (line.empty()) continue;
    auto cells = text::split(line, '\t', true);
    if (text::starts_with(line, "#")) {
      if (cells.size() >= 4 && cells[1] == "source") out.sources[cells[2]] = cells[3];
      if (cells.size() >= 7 && cells[1] == "upstream") out.upstream.push_back(line);
      continue;
    }
    cells.resize(12);
    out.rows.push_back(cells);
  }
  return out;
}

std::string hex_or_empty(int v, int width) {
  if (v < 0) return "";
  std::string digits = "0123456789abcdef", s;
  for (int i = 0; i < width; ++i, v >>= 4)
    s.insert(s.begin(), digits[static_cast<std::size_t>(v & 0xf)]);
  return "0x" + s;
}

} // namespace

TEST_CASE("gpu table: the compiled rows are the extracted rows, in the same order") {
  RowsFile file = rows_file();
  auto table = builtin_gpu_rows();
  REQUIRE(file.rows.size() == table.size());
  CHECK(table.size() > 1500);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& r = table[i];
    const auto& c = file.rows[i];
    CAPTURE(i);
    CAPTURE(text::join(c, " | "));
    CHECK(c[0] == hex_or_empty(r.vendor, 4));
    CHECK(c[1] == hex_or_empty(r.device, 4));
    CHECK(c[2] == hex_or_empty(r.revision, 2));
    CHECK(c[3] == hex_or_empty(r.subsystem_vendor, 4));
    CHECK(c[4] == hex_or_empty(r.subsystem_device, 4));
    CHECK(c[5] == r.name);
    CHECK(c[6] == r.arch);
    CHECK(c[7] == r.family);
    CHECK(c[8] == (r.gfx_target_version ? std::to_string(r.gfx_target_version) : ""));
    CHECK(c[9] == (r.vram_gib ? std::to_string(r.vram_gib) : ""));
    CHECK(c[10] == r.source);
    CHECK(c[11] == (r.uncertain ? "uncertain" : ""));
  }
  // Sorted by vendor and device, so lookups can search it.
  for (std::size_t i = 1; i < table.size(); ++i)
    CHECK(std::pair(table[i - 1].vendor, table[i - 1].device) <= std::pair(table[i].vendor, table[i].device));
}

TEST_CASE("gpu table: every row cites defined sources, none an uncited-knowledge marker") {
  RowsFile file = rows_file();
  CHECK(file.upstream.size() >= 4);
  for (const auto& line : file.upstream)
    CHECK(text::contains(line, "sha256="));
  auto compiled = builtin_gpu_sources();
  CHECK(compiled.size() == file.sources.size());
  for (const auto& s : compiled)
    CHECK(file.sources[s.key] == s.citation);
  std::set<std::string> cited;
  for (const auto& r : builtin_gpu_rows()) {
    CAPTURE(r.name);
    auto keys = text::split(r.source, ' ');
    REQUIRE_FALSE(keys.empty());
    for (const auto& k : keys) {
      CHECK(file.sources.count(k) == 1);
      CHECK_FALSE(text::contains(k, "UNCITED"));
      cited.insert(k);
    }
  }
  for (const auto& [key, citation] : file.sources) {
    CHECK_FALSE(text::contains(key, "UNCITED"));
    CHECK(cited.count(key) == 1); // no source is defined without a row that cites it
  }
}

TEST_CASE("gpu table: AMD rows agree with the gfx table, NVIDIA rows are sm_XX") {
  for (const auto& r : builtin_gpu_rows()) {
    CAPTURE(r.name);
    if (r.vendor == 0x10de) {
      CHECK(text::starts_with(r.arch, "sm_"));
      CHECK(r.gfx_target_version == 0);
    } else {
      REQUIRE(r.vendor == 0x1002);
      auto gfx = kb().find_gfx(r.gfx_target_version);
      REQUIRE_MESSAGE(gfx, r.arch << " (" << r.gfx_target_version << ") is not in gfx.yaml");
      CHECK(gfx->target == r.arch);
    }
  }
}

TEST_CASE("gpu table: lookups by PCI id") {
  // An RX 6700 XT was "not in the knowledge tables"; every revision of its die is gfx1031.
  auto rx6700xt = kb().find_gpu(0x1002, 0x73df, 0xc1, std::nullopt);
  REQUIRE(rx6700xt);
  CHECK(rx6700xt->arch == "gfx1031");
  CHECK(rx6700xt->gfx_target_version == 100301);
  CHECK(text::contains(rx6700xt->name, "RX 6700 XT"));
  auto unknown_rev = kb().find_gpu(0x1002, 0x73df, 0x42, std::nullopt);
  REQUIRE(unknown_rev);
  CHECK(unknown_rev->arch == "gfx1031");

  auto rtx4090 = kb().find_gpu(0x10de, 0x2684, 0xa1, std::nullopt);
  REQUIRE(rtx4090);
  CHECK(rtx4090->arch == "sm_89");
  CHECK(rtx4090->family == "Ada");
  CHECK(text::contains(rtx4090->source, "CUDA-GPUS"));
  CHECK(kb().find_gpu(0x10de, 0x2b85, std::nullopt, std::nullopt)->arch == "sm_120");
  CHECK(kb().find_gpu(0x10de, 0x2335, std::nullopt, std::nullopt)->arch == "sm_90");
  CHECK(kb().find_gpu(0x1002, 0x7550, 0xc0, std::nullopt)->arch == "gfx1201");
  CHECK(kb().find_gpu(0x1002, 0x74a1, 0x00, std::nullopt)->arch == "gfx942");
  CHECK_FALSE(kb().find_gpu(0x10de, 0x0001, std::nullopt, std::nullopt));
  CHECK_FALSE(kb().find_gpu(0x1002, 0x2684, std::nullopt, std::nullopt)); // an NVIDIA id under AMD's vendor

  // A board named by its subsystem ids (open-gpu-kernel-modules lists some) wins over the device's row.
  auto quadro = kb().find_gpu(0x10de, 0x1e30, std::nullopt, 0x129e, 0x1028);
  REQUIRE(quadro);
  CHECK(text::contains(quadro->name, "Quadro RTX 8000"));
  auto plain = kb().find_gpu(0x10de, 0x1e30, std::nullopt, 0x129e, 0x1234);
  REQUIRE(plain);
  CHECK(text::contains(plain->name, "Quadro RTX 6000"));
}
