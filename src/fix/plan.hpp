// The planner: facts + options -> the steps of one fix (a recipe and the recipes it includes) or of one
// migration (several recipes in a row), each with its parameters bound and its bash expanded.
#pragma once

#include "engine/result.hpp"
#include "facts/facts.hpp"
#include "facts/inventory.hpp"
#include "fix/choose.hpp"
#include "fix/params.hpp"
#include "fix/recipe.hpp"
#include "knowledge/knowledge.hpp"
#include "knowledge/stacks.hpp"

#include <expected>
#include <string>
#include <vector>

namespace gpudoctor::fix {

struct PlannedStep {
  std::string id; // "purge-rocm.packages"
  std::string title;
  std::string body;   // bash, parameters expanded
  std::string verify; // bash
  std::string where;  // the recipe file and line
  bool root = false, destructive = false, reboot = false;
  std::string stage; // "", "prepare", "cleanup" (recipe.hpp)
};

struct Plan {
  std::string kind; // "fix" or "migrate"
  std::string id;   // "purge-rocm", "migrate-to-nvidia"
  std::string title;
  std::vector<std::string> description; // one paragraph per recipe
  OsKey os;
  std::string host;   // the preflight refuses another host name; empty: not checked
  std::string kernel; // the kernel the facts name (GD_KERNEL); empty: the running one
  std::string source; // "this machine", "snapshot tests/machines/x/snapshot"
  std::vector<std::string> gpus, why, notes, must_pass;
  std::vector<PlannedStep> steps;

  bool needs_root() const;
  bool needs_reboot() const;
};

struct PlanOptions {
  VersionRequest versions;
  std::string mirror;          // replaces scheme and host of every vendor URL
  bool render_all = false;     // every step, even those with nothing to do here (tests: shellcheck coverage)
  bool check_host = true;      // the script refuses another host name
  bool unhold = false;         // held packages of the stack are released (else the script stops on them)
  bool stop_gpu_users = false; // processes using the old GPU are stopped (else the script stops on them)
  std::string incoming_gpu;    // --gpu: the card the versions are for (a model name or a PCI id)
  bool remove_present_stack = false; // migrate with GPUs of both vendors: purge the old stack all the same
  std::string swap_in, swap_out;     // set by the planner: the card that comes in and those that go, when a
                                     // migration powers off to swap them (the old vendor's card is in)
  std::string source = "this machine";
  // The gpudoctor a migration's check step runs, by its absolute path: the one that writes the script (the
  // app sets it; /usr/bin/gpudoctor, the package's, where none is known, as in the golden scripts).
  std::string gpudoctor = "/usr/bin/gpudoctor";
};

struct PlanContext {
  const Facts& facts;
  const Knowledge& kb;
  const Stacks& stacks;
  const RecipeBook& book;
  const Inventory& inventory;
  const std::vector<Result>& results;
  PlanOptions options;
};

std::expected<Plan, std::string> plan_fix(const std::string& id, const PlanContext& ctx);
std::expected<Plan, std::string> plan_migration(const std::string& to, const PlanContext& ctx);

// The fixes the results point to (warn and error results), in the order of the results.
struct Applicable {
  std::string fix;
  const Recipe* recipe = nullptr; // null: the fix has no recipe (a manual fix)
  std::vector<const Result*> results;
};
std::vector<Applicable> applicable_fixes(const RecipeBook& book, const std::vector<Result>& results);

// `url` with its scheme and host replaced by `mirror` (unchanged when `mirror` is empty).
std::string mirror_url(const std::string& url, const std::string& mirror);

// Parameters of one recipe for this machine (bind.cpp). `vendor`: the vendor the recipe acts on;
// `migrating`: versions come from the migration's choice, not from what is installed. What the choice
// says about itself (caveats, uncertain rows) is added to `notes`.
std::expected<Params, std::string> bind_params(const Recipe& recipe, const std::string& vendor,
                                               const OsKey& os, const PlanContext& ctx, bool migrating,
                                               std::vector<std::string>& notes);

} // namespace gpudoctor::fix
