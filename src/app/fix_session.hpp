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

// Loads everything and looks at the machine; on failure prints why and sets `status` (2 or 3).
std::unique_ptr<FixSession> open_fix_session(const FixOptions& opt, int& status);

// Prints the script, writes it (--emit), or applies it (--apply). Returns the exit status.
int deliver_plan(const fix::Plan& plan, const FixSession& session, const FixOptions& opt, bool migration);

} // namespace gpudoctor
