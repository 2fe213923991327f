// What `gpudoctor fix` and `gpudoctor migrate` share: the data files, the machine (live, a snapshot, or a
// test root), the checks' results and the inventory, and turning a plan into a script (printed, written,
// applied).
#pragma once

#include "app/commands.hpp"
#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "fix/plan.hpp"
#include "fix/recipe.hpp"
#include "knowledge/stacks.hpp"

#include <expected>
#include <memory>
#include <string>

namespace gpudoctor {

struct FixSession {
  std::unique_ptr<OpenedSnapshot> snapshot;
  std::unique_ptr<SystemView> live;
  Loaded data;
  fix::RecipeBook book;
  Stacks stacks;
  Report report; // its facts hold the inventory (taken with `stacks`)
  std::string source = "this machine";
  bool check_host = true;

  fix::PlanContext context(const FixOptions& opt) const;
};

// Loads everything and looks at the machine; the failure exits 2 (bad input) or 3 (gpudoctor's data).
std::expected<std::unique_ptr<FixSession>, Failure> open_fix_session(const FixOptions& opt);

// Prints the script, writes it (--emit), or applies it (--apply).
Outcome deliver_plan(const fix::Plan& plan, const FixSession& session, const FixOptions& opt, bool migration);

} // namespace gpudoctor
