// Shared by the fix tests: the built-in recipes and stack tables, and a machine snapshot turned into the
// plan context the planner takes (the same path `gpudoctor fix --from` goes).
#pragma once

#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "fix/inventory.hpp"
#include "fix/plan.hpp"
#include "fix/recipe.hpp"
#include "fix/stacks.hpp"
#include "system/system_view.hpp"

#include <map>
#include <memory>
#include <set>
#include <string>

#include <doctest/doctest.h>

namespace gpudoctor::test {

inline const fix::RecipeBook& recipes() {
  static const fix::RecipeBook book = [] {
    auto loaded = fix::load_recipes();
    if (!loaded) FAIL("built-in recipes do not load: " << loaded.error());
    return *loaded;
  }();
  return book;
}

inline const fix::Stacks& stacks() {
  static const fix::Stacks s = [] {
    auto loaded = fix::load_stacks();
    if (!loaded) FAIL("built-in stack tables do not load: " << loaded.error());
    return *loaded;
  }();
  return s;
}

// A snapshot looked at as `gpudoctor fix --from` does: facts, results, inventory.
struct SnapshotMachine {
  Loaded data;
  Report report;
  fix::Inventory inventory;
  std::string label;

  fix::PlanContext context(fix::PlanOptions opt = {}) const {
    opt.source = label;
    return fix::PlanContext{report.facts, data.kb, stacks(), recipes(), inventory, report.results, opt};
  }
};

// `rel`: the snapshot folder relative to the source folder (tests/machines/x/snapshot).
inline std::unique_ptr<SnapshotMachine> open_machine(const std::string& rel) {
  auto m = std::make_unique<SnapshotMachine>();
  auto data = load_data(CheckOptions{});
  REQUIRE_MESSAGE(data.has_value(), (data ? std::string() : data.error().message));
  m->data = std::move(*data);
  auto snap = OpenedSnapshot::open(std::string(GPUDOCTOR_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(snap.has_value(), (snap ? std::string() : snap.error()));
  m->report = run_pipeline((*snap)->view(), m->data, CheckOptions{});
  m->inventory = fix::take_inventory((*snap)->view(), m->report.facts, m->data.kb, stacks());
  m->label = "snapshot " + rel;
  return m;
}

} // namespace gpudoctor::test

namespace gpudoctor::test {

// A machine made of in-memory files (folders are implied by the paths below them), for the inventory tests:
// what take_inventory reads, without a snapshot folder on disk.
class FileMapView : public SystemView {
public:
  std::map<std::string, std::string> files;
  std::map<std::string, CommandResult> commands; // by key

  std::optional<std::string> read_file(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override {
    std::set<std::string> names;
    std::string prefix = path + "/";
    for (const auto& [p, _] : files)
      if (p.starts_with(prefix))
        names.insert(p.substr(prefix.size(), p.find('/', prefix.size()) - prefix.size()));
    if (names.empty()) return std::nullopt;
    return std::vector<std::string>(names.begin(), names.end());
  }
  std::optional<std::string> read_link(const std::string&) override { return std::nullopt; }
  std::optional<FileStat> stat(const std::string& path) override {
    FileStat st;
    if (files.count(path)) {
      st.type = FileType::file;
      return st;
    }
    if (list_dir(path)) {
      st.type = FileType::dir;
      return st;
    }
    return std::nullopt;
  }
  CommandResult run(const CommandSpec& spec) override {
    auto it = commands.find(spec.key);
    if (it != commands.end()) return it->second;
    CommandResult r;
    r.key = spec.key;
    r.argv = spec.argv;
    return r;
  }
  std::map<std::string, std::string> environment() override { return {}; }
  Identity identity() override { return {}; }
  std::string kind() const override { return "fake"; }
};

} // namespace gpudoctor::test
