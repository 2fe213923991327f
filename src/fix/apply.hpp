// The applier: runs a rendered script one step at a time (sudo per step when gpudoctor is not root, or
// `chroot ROOT` for tests), records its progress in a state file so a migration survives the reboot, stops
// at the first failing step, and undoes the last run from its journal and backups.
#pragma once

#include "fix/plan.hpp"
#include "fix/render.hpp"

#include <string>

namespace gpudoctor::fix {

struct ApplyOptions {
  bool yes = false;      // do not ask before running
  std::string root;      // for tests: the steps run in `chroot ROOT`, state and journal are below ROOT
  bool any_host = false; // passed to the script
};

// /var/lib/gpudoctor for root, else $XDG_STATE_HOME/gpudoctor (~/.local/state/gpudoctor); below `root`.
std::string state_dir(const std::string& root);

// Shows the plan, asks (unless yes), runs every step. `migration`: also keep the state for --resume.
// Returns 0 when every step ran (or the plan stopped for a reboot), 1 when a step failed, 2 when refused.
int apply_plan(const Plan& plan, const Script& script, const ApplyOptions& opt, bool migration);

// Continues the migration recorded in the state file after the reboot.
int resume_migration(const ApplyOptions& opt);

// Restores the files the last apply edited or removed, removes those it created, and prints the commands
// that would reinstall what it removed.
int undo_last_apply(const std::string& root, bool yes);

} // namespace gpudoctor::fix
