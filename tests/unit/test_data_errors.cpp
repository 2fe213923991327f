// Every reader of gpudoctor's YAML data (knowledge tables, the two catalogues, recipes and migrations, the
// stack tables) refuses a bad file with "file:line: why", through the one adapter (util/yaml_doc.hpp).
// Each case starts from the real data file and breaks one thing.
#include "engine/catalogue.hpp"
#include "fix/recipe.hpp"
#include "knowledge/knowledge.hpp"
#include "knowledge/stacks.hpp"
#include "system/temp_files.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

// A copy of the source folder's data (checks/, fixes/) in a temporary folder, one file replaced.
struct ScratchData {
  temp::Folder folder;
  fs::path root;
  ScratchData(const std::string& rel, const std::string& content)
      : folder(temp::Folder::create("dataerrors").value()), root(folder.path()) {
    for (const char* sub : {"checks/knowledge", "fixes"}) {
      fs::create_directories(root / sub);
      for (const auto& entry : fs::directory_iterator(fs::path(GPUDOCTOR_SOURCE_DIR) / sub))
        if (entry.is_regular_file()) fs::copy_file(entry.path(), root / sub / entry.path().filename());
    }
    fs::copy_file(fs::path(GPUDOCTOR_SOURCE_DIR) / "checks/catalogue.yaml", root / "checks/catalogue.yaml");
    REQUIRE(write_whole_file(root / rel, content));
  }

  template <class R> static std::string error_of(const R& r) {
    return r ? std::string("(loaded)") : r.error();
  }
  std::string catalogue() const { return error_of(load_catalogue(root.string())); }
  std::string recipes() const { return error_of(fix::load_recipes(root.string())); }
  std::string stacks() const { return error_of(load_stacks(root.string())); }
  std::string knowledge() const { return error_of(load_knowledge((root / "checks/knowledge").string())); }
};

std::string source(const std::string& rel) {
  auto text = read_whole_file(fs::path(GPUDOCTOR_SOURCE_DIR) / rel);
  REQUIRE(text);
  return *text;
}

// `text` with the first `from` replaced by `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

// The 1-based line of the first `what` in `text`.
int line_of(const std::string& text, const std::string& what) {
  auto at = text.find(what);
  REQUIRE_MESSAGE(at != std::string::npos, what);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// The first row of a list of `  - id: ` rows, with its fields, up to the next row.
std::string first_row(const std::string& text) {
  auto begin = text.find("  - id: ");
  auto end = text.find("  - id: ", begin + 1);
  REQUIRE(end != std::string::npos);
  return text.substr(begin, end - begin);
}

std::string at_line(const std::string& file, int line) {
  return file + ":" + std::to_string(line) + ": ";
}

} // namespace

TEST_CASE("data errors: the unchanged copies load") {
  ScratchData data("fixes/reboot.yaml", source("fixes/reboot.yaml"));
  CHECK(data.catalogue() == "(loaded)");
  CHECK(data.recipes() == "(loaded)");
  CHECK(data.stacks() == "(loaded)");
  CHECK(data.knowledge() == "(loaded)");
}

TEST_CASE("data errors: a key given twice in one mapping is refused, not read as its first value") {
  // Before the adapter yaml-cpp kept both entries and every reader took the first one silently.
  std::string reboot = source("fixes/reboot.yaml");
  std::string run = "    run: gd_reboot\n";
  std::string err =
      ScratchData("fixes/reboot.yaml", edited(reboot, run, run + "    run: gd_say twice\n")).recipes();
  CHECK(text::contains(
      err, at_line("fixes/reboot.yaml", line_of(reboot, run) + 1) +
               fmt::format("key 'run' given twice in one mapping (first at line {})", line_of(reboot, run))));

  std::string cuda = source("checks/knowledge/cuda.yaml");
  std::string row = "{cuda: \"10.0\", min_driver: \"410.48\",";
  err =
      ScratchData("checks/knowledge/cuda.yaml", edited(cuda, row, row + " min_driver: \"1.2\",")).knowledge();
  CHECK(text::contains(err, at_line("cuda.yaml", line_of(cuda, row)) + "key 'min_driver' given twice"));

  std::string cat = source("checks/catalogue.yaml");
  err = ScratchData("checks/catalogue.yaml",
                    edited(cat, "    area: hardware\n", "    area: hardware\n    area: drivers\n"))
            .catalogue();
  CHECK(text::contains(err, "key 'area' given twice"));
}

TEST_CASE("data errors: the check and fix catalogues refuse unknown fields and repeated ids") {
  // Before: a misspelt field (`titel`) and a fix listed twice in fixes/catalogue.yaml loaded silently.
  std::string cat = source("checks/catalogue.yaml");
  std::string err = ScratchData("checks/catalogue.yaml",
                                edited(cat, "    area: hardware\n", "    area: hardware\n    titel: x\n"))
                        .catalogue();
  CHECK(text::contains(err, at_line("checks/catalogue.yaml", line_of(cat, "    area: hardware\n") + 1) +
                                "unknown field 'titel'"));

  std::string fixes = source("fixes/catalogue.yaml");
  err = ScratchData("fixes/catalogue.yaml", fixes + first_row(fixes)).catalogue();
  CHECK(text::contains(err, "fixes/catalogue.yaml:"));
  CHECK(text::contains(err, "listed twice"));

  // A top level without the list says where (before: the file name only).
  err = ScratchData("checks/catalogue.yaml", "checks: 5\n").catalogue();
  CHECK(text::contains(err, "checks/catalogue.yaml:1: "));
  CHECK(text::contains(err, "\"checks\""));
}

TEST_CASE("data errors: a check's action is one step or one command, nothing else") {
  std::string cat = source("checks/catalogue.yaml");
  std::string area = "    area: hardware\n";
  int line = line_of(cat, area) + 1;
  for (const char* bad : {"    action: {step: a, command: b}\n", "    action: {}\n"}) {
    CAPTURE(bad);
    CHECK(text::contains(ScratchData("checks/catalogue.yaml", edited(cat, area, area + bad)).catalogue(),
                         at_line("checks/catalogue.yaml", line) + "field 'action' needs exactly one of step "
                                                                  "and command"));
  }
  CHECK(text::contains(
      ScratchData("checks/catalogue.yaml", edited(cat, area, area + "    action: {run: x}\n")).catalogue(),
      "unknown field 'run'"));
  CHECK(text::contains(
      ScratchData("checks/catalogue.yaml", edited(cat, area, area + "    action: just text\n")).catalogue(),
      "a row must be a mapping"));
  CHECK(ScratchData("checks/catalogue.yaml", edited(cat, area, area + "    action: {command: \"true\"}\n"))
            .catalogue() == "(loaded)");
}

TEST_CASE("data errors: the catalogues' former error paths keep their file and line") {
  std::string cat = source("checks/catalogue.yaml");
  std::string title = first_row(cat).substr(first_row(cat).find("    title: "));
  title = title.substr(0, title.find('\n') + 1);
  std::string err = ScratchData("checks/catalogue.yaml", edited(cat, title, "")).catalogue();
  CHECK(text::contains(err, at_line("checks/catalogue.yaml", line_of(cat, "  - id: ")) +
                                "missing required field 'title'"));
  err = ScratchData("checks/catalogue.yaml", cat + first_row(cat)).catalogue();
  CHECK(text::contains(err, "listed twice"));

  err = ScratchData("fixes/catalogue.yaml", "fixes:\n  - {title: no id}\n").catalogue();
  CHECK(text::contains(err, "fixes/catalogue.yaml:2: missing required field 'id'"));
  err = ScratchData("fixes/catalogue.yaml", "fixes:\n  - id: [\n").catalogue();
  CHECK(text::contains(err, "fixes/catalogue.yaml:"));
  err = ScratchData("fixes/catalogue.yaml", "other: []\n").catalogue();
  CHECK(text::contains(err, "fixes/catalogue.yaml:1: "));
}

TEST_CASE("data errors: the stack tables refuse bad rows with the file and line") {
  std::string stacks = source("fixes/stacks.yaml");
  std::string label = "fixes/stacks.yaml";
  // Before: a source without a citation was accepted (knowledge files refuse it).
  std::string err = ScratchData(label, edited(stacks, "sources:\n", "sources:\n  EMPTY: \"\"\n")).stacks();
  CHECK(text::contains(err, at_line(label, line_of(stacks, "sources:\n") + 1) +
                                "a source must be 'KEY: citation'"));

  std::string row = "  - {cuda_major: 13, min_arch: sm_75, source: KB-ARCH}";
  int line = line_of(stacks, row);
  struct Case {
    const char *row, *says;
  };
  for (auto c :
       {Case{"  - {cuda_major: 13, min_arch: sm_75, source: KB-ARCH, extra: 1}", "unknown field 'extra'"},
        Case{"  - {cuda_major: 13, min_arch: sm_75}", "missing required field 'source'"},
        Case{"  - {cuda_major: 13, min_arch: sm_75, source: NOPE}", "source key 'NOPE'"},
        Case{"  - {cuda_major: 13, min_arch: gfx90a, source: KB-ARCH}", "field 'min_arch' must be sm_NN"},
        Case{"  - {cuda_major: x, min_arch: sm_75, source: KB-ARCH}", "cuda_major must be a number"},
        Case{"  - just text", "a row must be a mapping"}}) {
    CAPTURE(c.row);
    err = ScratchData(label, edited(stacks, row, c.row)).stacks();
    CHECK(text::contains(err, at_line(label, line) + c.says));
  }
  err = ScratchData(label, stacks + "  - [\n").stacks();
  CHECK(text::contains(err, label + ":"));
}

TEST_CASE("data errors: a knowledge table without rows must still be a known table") {
  // Before: an unknown table was only noticed at its first row, so `gpu_models: []` loaded.
  std::string err = ScratchData("checks/knowledge/extra.yaml", "gpu_models: []\n").knowledge();
  CHECK(text::contains(err, "extra.yaml:1: unknown table 'gpu_models'"));
}

TEST_CASE("data errors: migrations keep their file and line") {
  std::string migrate = source("fixes/migrate.yaml");
  std::string err = ScratchData("fixes/migrate.yaml", edited(migrate, "migrations:", "migration:")).recipes();
  CHECK(text::contains(err, at_line("fixes/migrate.yaml", line_of(migrate, "migrations:")) +
                                "unknown field 'migration'"));
  err = ScratchData("fixes/migrate.yaml", migrate + "\nextra: 1\n").recipes();
  CHECK(text::contains(err, "unknown field 'extra'"));
}
