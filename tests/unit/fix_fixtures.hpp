// Shared by the fix tests: the built-in recipes and stack tables, and a machine snapshot turned into the
// plan context the planner takes (the same path `gpudoctor fix --from` goes). In-memory machines for the
// inventory: testutil's MemView.
#pragma once

#include "collect/inventory.hpp"
#include "fix/plan.hpp"
#include "fix/recipe.hpp"
#include "knowledge/stacks.hpp"
#include "unit/testutil.hpp"

#include <memory>
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

inline const Stacks& stacks() {
  static const Stacks s = [] {
    auto loaded = load_stacks();
    if (!loaded) FAIL("built-in stack tables do not load: " << loaded.error());
    return *loaded;
  }();
  return s;
}

// The step `id` of a plan, or null.
inline const fix::PlannedStep* plan_step(const fix::Plan& plan, const std::string& id) {
  for (const auto& s : plan.steps)
    if (s.id == id) return &s;
  return nullptr;
}

// A snapshot looked at as `gpudoctor fix --from` does: facts, results, inventory.
struct SnapshotMachine {
  const Loaded& data = loaded_data();
  Report report;
  Inventory inventory;
  std::string label;

  fix::PlanContext context(fix::PlanOptions opt = {}) const {
    opt.source = label;
    return fix::PlanContext{report.facts, data.kb, stacks(), recipes(), inventory, report.results, opt};
  }
};

// `rel`: the snapshot folder relative to the source folder (tests/machines/x/snapshot).
inline std::unique_ptr<SnapshotMachine> open_machine(const std::string& rel) {
  auto m = std::make_unique<SnapshotMachine>();
  auto snap = OpenedSnapshot::open(std::string(GPUDOCTOR_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(snap.has_value(), (snap ? std::string() : snap.error()));
  auto judged = run_pipeline((*snap)->view(), m->data, CheckOptions{}, &stacks());
  REQUIRE_MESSAGE(judged.has_value(), (judged ? std::string() : judged.error().message));
  m->report = std::move(*judged);
  REQUIRE(m->report.facts.inventory.has_value());
  m->inventory = *m->report.facts.inventory;
  m->label = "snapshot " + rel;
  return m;
}

} // namespace gpudoctor::test
