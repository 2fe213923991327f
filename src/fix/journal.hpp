// The journal a script writes (/var/log/gpudoctor/<script-id>.journal): one tab-separated line per event,
// time, run, step, event, arguments. `gpudoctor undo` reads it back (docs/fixes.md, "Journal").
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpudoctor::fix {

struct JournalEntry {
  std::string time, run, step, event;
  std::vector<std::string> args;
};

std::vector<JournalEntry> parse_journal(const std::string& text);

// What one run, or several runs of one script (a migration's), did, for undo: files to restore, files they
// created, packages they removed or installed. Over several runs it is the net effect, as undoing them
// newest first would leave it: each file goes back to its copy made by the first run that changed it (or
// goes, when a run created it), each package to what it was before the first run that touched it.
struct Backup {
  std::string file, copy, run; // the copy lies in that run's backup folder
};
struct RunEffects {
  std::vector<Backup> backups;                             // first per file: the state before
  std::vector<std::string> created;                        // files that did not exist before the runs
  std::vector<std::pair<std::string, std::string>> purged; // package, version
  std::vector<std::string> auto_marked; // of those, the ones apt had installed as dependencies
  std::vector<std::string> installed;   // packages that were not there before
  // NAME-EPOCH:VERSION-RELEASE: the versions an RPM transaction planned for packages it upgrades
  // (install-planned-version). A transaction cut off leaves some beside their old versions.
  std::vector<std::string> planned_versions;
  std::vector<std::string> trees;                          // folders removed without a backup
  std::vector<std::pair<std::string, std::string>> groups; // user, group added
  std::vector<std::string> pip;                            // "python: what" lines
  std::map<std::string, std::string> cached;               // purged package -> its .deb kept in the cache
  std::vector<std::string> unheld;                         // packages whose hold the run released
  std::vector<std::string> versionlocks;                   // dnf versionlock entries the run removed
  // dnf module streams the runs changed, first touch each: the module and the stream enabled before the
  // runs (empty: none was).
  std::vector<std::pair<std::string, std::string>> module_streams;
  std::vector<std::string> stopped; // services and processes the run stopped
  std::string family;               // the package family the script was made for (its start entry), for undo
  // Some purged packages made way for an install of the same stack's (the distribution's builds: they may
  // share files with what came in, so undo takes the new ones out before it puts them back).
  bool replaced = false;
  std::vector<std::string> undone_runs; // of the runs, those undone already
  // Runs whose changes a rollback put back: one of the runs that rolled back, and the earlier runs its
  // entry names (lib.bash's gd_rollback_run covers the prepare steps back to the last run past them).
  std::vector<std::string> rolled_back_runs;
  bool undone = false; // every run with an entry is undone
  bool found = false;  // some run has an entry
};

RunEffects run_effects(const std::vector<JournalEntry>& journal, const std::vector<std::string>& runs);
RunEffects run_effects(const std::vector<JournalEntry>& journal, const std::string& run);

// Whether the runs changed anything undo would put back (a download into the cache is not counted).
bool changed_anything(const RunEffects& fx);

// The runs that have entries in the journal, in the order they first appear.
std::vector<std::string> journal_runs(const std::vector<JournalEntry>& journal);

} // namespace gpudoctor::fix
