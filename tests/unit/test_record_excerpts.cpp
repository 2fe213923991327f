// What a recording keeps of dpkg's status and of the version headers (system/record_excerpts): a fraction of
// the bytes, read by the parsers exactly as the whole file; the manifest names each excerpt; a replay reads
// the excerpt; garbage in, a subset of its lines out.
#include "parse/parsers.hpp"
#include "parse/parsers_system.hpp"
#include "system/live_view.hpp"
#include "system/record_excerpts.hpp"
#include "system/recording_view.hpp"
#include "system/replay_view.hpp"
#include "system/snapshot_json.hpp"
#include "unit/testutil.hpp"
#include "util/json.hpp"

#include <fstream>
#include <random>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

const fs::path k_h200 = test::machine_dir("nvidia-h200-real") / "snapshot" / "fs";

void same_records(std::string_view whole, std::string_view excerpt) {
  auto a = parse::dpkg_records(whole), b = parse::dpkg_records(excerpt);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].name);
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].version == b[i].version);
    CHECK(a[i].want == b[i].want);
    CHECK(a[i].flag == b[i].flag);
    CHECK(a[i].status == b[i].status);
    CHECK(a[i].clauses == b[i].clauses);
    CHECK(a[i].provides == b[i].provides);
  }
}

std::set<std::string> lines_of(std::string_view text) {
  std::set<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out.emplace(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

} // namespace

TEST_CASE("excerpt: dpkg's status keeps what its readers read, without descriptions and conffiles") {
  std::string whole = test::slurp(k_h200 / "var/lib/dpkg/status");
  REQUIRE(whole.size() > 100000);
  auto rule = excerpts::rule_for("/var/lib/dpkg/status");
  REQUIRE(rule);
  CHECK(*rule == "dpkg-status-fields");
  std::string excerpt = excerpts::apply(*rule, whole);
  MESSAGE("dpkg status: " << whole.size() << " bytes, excerpt " << excerpt.size());
  CHECK(excerpt.size() * 2 < whole.size()); // 404 KB to 165 KB
  CHECK(excerpt.find("\nDescription:") == std::string::npos);
  CHECK(excerpt.find("\nConffiles:") == std::string::npos);
  CHECK(excerpt.find("\nMaintainer:") != std::string::npos); // the origin of a package (the migrations)
  same_records(whole, excerpt);
  CHECK(parse::dpkg_status(whole) == parse::dpkg_status(excerpt));
  CHECK(parse::dpkg_depends(whole) == parse::dpkg_depends(excerpt));

  // Field names are case-insensitive; a continuation line stays with its field; CRLF lines are kept whole.
  std::string odd =
      "package: a\r\nSTATUS: install ok installed\r\nDescription: x\r\n more\r\n .\r\nversion: 1\r\n"
      "Depends: b,\n c\n\nPackage: b\nStatus: install ok installed\nVersion: 2\n";
  std::string kept = excerpts::apply(*rule, odd);
  CHECK(kept == "package: a\r\nSTATUS: install ok installed\r\nversion: 1\r\nDepends: b,\n c\n\nPackage: "
                "b\nStatus: install ok installed\nVersion: 2\n");
  same_records(odd, kept);

  // Lines the parsers split as they do: a line of blanks ends a paragraph; a key with a blank before its
  // colon is still the key; a line starting with any blank (a form feed too) continues a field.
  std::string blanks = "Package: a\nStatus: install ok installed\nVersion: 1\n \t\nPackage: b\nVersion : 2\n"
                       "Status: install ok installed\n\fPackage: c\nDescription: d\n\v\nPackage: e\n";
  std::string blank_kept = excerpts::apply(*rule, blanks);
  same_records(blanks, blank_kept);
  CHECK(parse::dpkg_records(blanks).size() == 3);
  CHECK(blank_kept.find("Version : 2") != std::string::npos);
}

TEST_CASE("excerpt: a version header keeps its #define lines, and its version") {
  std::string whole = test::slurp(k_h200 / "usr/include/nccl.h");
  for (const char* path : {"/usr/include/nccl.h", "/usr/local/cuda/include/nccl.h",
                           "/opt/rocm/include/rccl/rccl.h", "/usr/include/x86_64-linux-gnu/cudnn_version.h"})
    CHECK_MESSAGE(excerpts::rule_for(path) == std::optional<std::string_view>("header-defines"), path);
  CHECK_FALSE(excerpts::rule_for("/usr/include/nccl.hpp"));
  CHECK_FALSE(excerpts::rule_for("/etc/os-release"));
  std::string excerpt = excerpts::apply("header-defines", whole);
  MESSAGE("nccl.h: " << whole.size() << " bytes, excerpt " << excerpt.size());
  CHECK(excerpt.size() * 5 < whole.size());
  REQUIRE(parse::nccl_header_version(whole));
  CHECK(parse::nccl_header_version(excerpt) == parse::nccl_header_version(whole));
  CHECK(excerpts::apply("header-defines", "#  define CUDNN_MAJOR 9\n\t# define CUDNN_MINOR (1)\nint x;\n") ==
        "#  define CUDNN_MAJOR 9\n\t# define CUDNN_MINOR (1)\n");
  // Any blank the parser skips, before the '#' or after it.
  std::string blanks = "\f#define NCCL_MAJOR 2\r\n#\vdefine NCCL_MINOR 28\n/* x */\n";
  CHECK(parse::nccl_header_version(excerpts::apply("header-defines", blanks)) ==
        parse::nccl_header_version(blanks));
  CHECK(parse::nccl_header_version(blanks) == std::optional<std::string>("2.28"));
}

TEST_CASE("excerpt: garbage in, a subset of its lines out; an unknown rule keeps the file whole") {
  std::mt19937 rng(31);
  const std::string alphabet = "Package: \nDescription#define\t \r:abc\xff\x00";
  for (int round = 0; round < 500; ++round) {
    std::string text;
    std::size_t n = rng() % 400;
    for (std::size_t i = 0; i < n; ++i)
      text += alphabet[rng() % alphabet.size()];
    std::set<std::string> in = lines_of(text);
    for (const char* rule : {"dpkg-status-fields", "header-defines"}) {
      std::string out = excerpts::apply(rule, text);
      CHECK(out.size() <= text.size());
      for (const auto& line : lines_of(out))
        CHECK(in.contains(line));
    }
  }
  CHECK(excerpts::apply("no-such-rule", "a\nb") == "a\nb");
}

TEST_CASE("record: excerpted files are named in the manifest, and a replay reads the excerpt") {
  test::TempDir tmp("gpudoctor-excerpts");
  const fs::path root = tmp / "root";
  fs::create_directories(root / "var/lib/dpkg");
  fs::create_directories(root / "usr/include");
  fs::copy_file(k_h200 / "var/lib/dpkg/status", root / "var/lib/dpkg/status");
  fs::copy_file(k_h200 / "usr/include/nccl.h", root / "usr/include/nccl.h");
  std::ofstream(root / "usr/include/other.h") << "/* a header read whole */\nint x;\n";
  LiveView live(root.string());
  const fs::path snap = tmp / "snapshot";
  std::string status, header, other;
  {
    RecordingView rec(live, snap, "gpudoctor test");
    status = rec.read_file("/var/lib/dpkg/status").value_or("");
    header = rec.read_file("/usr/include/nccl.h").value_or("");
    other = rec.read_file("/usr/include/other.h").value_or("");
    CHECK(rec.excerpted_files() ==
          std::map<std::string, std::string>{{"/usr/include/nccl.h", "header-defines"},
                                             {"/var/lib/dpkg/status", "dpkg-status-fields"}});
    rec.finish(snapshot::Manifest{"2026-12-05T00:00:00Z", "gpudoctor test", "live", {}, ""});
  }
  // The collectors read the whole file live; the snapshot holds the excerpt.
  CHECK(status == test::slurp(k_h200 / "var/lib/dpkg/status"));
  CHECK(test::slurp(snap / "fs/var/lib/dpkg/status") == excerpts::apply("dpkg-status-fields", status));
  CHECK(test::slurp(snap / "fs/usr/include/nccl.h") == excerpts::apply("header-defines", header));
  CHECK(test::slurp(snap / "fs/usr/include/other.h") == other);
  auto manifest = parse_json(test::slurp(snap / "manifest.json"));
  REQUIRE(manifest);
  CHECK((*manifest)["excerpts"]["/var/lib/dpkg/status"] == "dpkg-status-fields");

  auto replay = ReplayView::open(snap);
  REQUIRE(replay);
  CHECK((*replay)->manifest().excerpts.size() == 2);
  auto replayed = (*replay)->read_file("/var/lib/dpkg/status");
  REQUIRE(replayed);
  CHECK(parse::dpkg_status(*replayed) == parse::dpkg_status(status));
  CHECK(parse::nccl_header_version((*replay)->read_file("/usr/include/nccl.h").value_or("")) ==
        parse::nccl_header_version(header));
}

TEST_CASE("record: a manifest's excerpts must map absolute paths to rule names") {
  for (const char* bad : {R"({"format":"gpudoctor-snapshot","version":1,"excerpts":[]})",
                          R"({"format":"gpudoctor-snapshot","version":1,"excerpts":{"rel/path":"x"}})",
                          R"({"format":"gpudoctor-snapshot","version":1,"excerpts":{"/a":1}})"}) {
    auto read = snapshot::read_manifest(bad);
    CHECK_MESSAGE(read.error.find("\"excerpts\"") != std::string::npos, bad);
  }
}
