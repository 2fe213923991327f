// The applier: runs a rendered script one step at a time (`chroot ROOT` for tests), records its progress
// so a migration survives its reboot and its failures, stops at the first failing step, and undoes from the
// journal and the backups (docs/fixes.md, "Apply, resume, undo"). As root every record is root's
// (fix/record_files.hpp); a user's apply of what needs root is handed to root by the app (app/root_handoff),
// never run step by step through sudo.
#pragma once

#include "fix/events.hpp"
#include "fix/plan.hpp"
#include "fix/render.hpp"
#include "system/process.hpp"
#include "util/diagnostics.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::fix {

struct ApplyOptions {
  bool yes = false;      // do not ask before running
  std::string root;      // for tests: the steps run in `chroot ROOT`, the records are below ROOT
  bool any_host = false; // passed to the script
  std::string rerun;     // the command as it was given ("gpudoctor fix purge-rocm --apply"), for messages
  // migrate --apply that continues the machine's unfinished migration: the options given that would shape a
  // new plan, which it ignores ("--driver 570"), named in a warning.
  std::vector<std::string> ignored;
};

// Each of these reports what goes on to `ui` (fix/events.hpp) and asks it, unless yes; it prints nothing.

// fix --apply and migrate --apply of a new plan: shows the plan, asks (unless yes), keeps the script and the
// record in the records' folders, runs every step. A migration is the machine's one migration: while one is
// unfinished the same target continues it and another is refused; a fix that installs or removes packages
// is refused then too. Exit::ok when every step ran (or the plan stopped for a reboot), Exit::findings when
// a step failed (said with the commands that recover), a failure (exit 2) when refused.
Outcome apply_plan(const Plan& plan, const Script& script, const ApplyOptions& opt, bool migration,
                   Frontend& ui);

// migrate --to TARGET --apply, before a plan is made: when the machine's migration is unfinished (or done),
// continues it (or says so, or refuses another target) and returns its outcome; nullopt when a new
// migration is to be planned.
std::optional<Outcome> apply_recorded_migration(const std::string& target, const ApplyOptions& opt,
                                                Frontend& ui);

// migrate --resume: continues the machine's unfinished migration (after its reboot, or a failure).
Outcome resume_migration(const ApplyOptions& opt, Frontend& ui);

// migrate --finish: closes a migration that ran to its end and frees its undo cache
// (/var/cache/gpudoctor/ID); after it, undo cannot put the old stack back. Also frees the cache of one that
// was undone.
Outcome finish_migration(const ApplyOptions& opt, Frontend& ui);

// What to undo: the last apply, the one a state file names (root's own; a user's is refused with the
// root-side command), or a script's runs by id.
struct UndoRequest {
  std::string root; // tests, as for fix
  bool yes = false;
  std::string state_file;
  std::string script_id, run; // --script ID [--run RUN]
};

// Restores the files the runs edited or removed, removes those they created, puts the packages they purged
// back from the script's cache (what has no cached .deb is named as a command), purges those they
// installed and holds again what they unheld; a migration's runs all together, newest first. As root only
// from root's own records; a user undoes its own applies (the package commands printed, not run).
Outcome undo_apply(const UndoRequest& req, Frontend& ui);

// A user's undo: its own apply (undone here), or one root made for it through sudo (`root_args` for root's
// gpudoctor), or nothing (`refusal` says why).
struct UserUndo {
  enum class Kind { own, root, none } kind = Kind::none;
  std::vector<std::string> root_args;
  Failure refusal;
};
UserUndo user_undo(const UndoRequest& req);

// After a user's apply ran as root through sudo: the user's last-apply.json says so (a pointer, no path),
// so that the user's `gpudoctor undo` asks root. `what`: the command ("migrate --to nvidia --apply").
std::expected<void, std::string> note_root_apply(const std::string& what);

// Runs argv with this process's terminal and environment (in `chroot ROOT` when root is given); the exit
// status, 128+N for signal N.
int run_attached(const std::vector<std::string>& argv, const std::string& root = {},
                 ChildOutput output = ChildOutput::inherit);

} // namespace gpudoctor::fix
