// The applier: runs a rendered script one step at a time (sudo per step when gpudoctor is not root, or
// `chroot ROOT` for tests), records its progress in a state file so a migration survives the reboot, stops
// at the first failing step, and undoes the last run from its journal and backups.
#pragma once

#include "fix/plan.hpp"
#include "fix/render.hpp"

#include <string>
#include <vector>

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

// Restores the files the last apply edited or removed, removes those it created, puts the packages it
// purged back from the script's cache (what has no cached .deb is printed as a command), purges those it
// installed and holds again what it unheld. As non-root, the package commands are printed, not run.
// `state_file`: the apply's state file; empty: the last apply of this user (state_dir). An apply whose steps
// ran as root through sudo has root's journal and backups: as non-root, undo runs itself through sudo.
int undo_last_apply(const std::string& root, bool yes, const std::string& state_file = {});

// Runs argv with this process's terminal and environment (in `chroot ROOT` when root is given); the exit
// status, 128+N for signal N.
int run_attached(const std::vector<std::string>& argv, const std::string& root = {});

} // namespace gpudoctor::fix
