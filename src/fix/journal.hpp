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

// What one run did, for undo: files to restore, files it created, packages it removed or installed.
struct RunEffects {
  std::vector<std::pair<std::string, std::string>> backups; // file, backup (first per file: the state before)
  std::vector<std::string> created;                         // files that did not exist before the run
  std::vector<std::pair<std::string, std::string>> purged;  // package, version
  std::vector<std::string> auto_marked; // of those, the ones apt had installed as dependencies
  std::vector<std::string> installed;   // packages
  std::vector<std::string> trees;       // folders removed without a backup
  std::vector<std::pair<std::string, std::string>> groups; // user, group added
  std::vector<std::string> pip;                            // "python: what" lines
  std::map<std::string, std::string> cached;               // purged package -> its .deb kept in the cache
  std::vector<std::string> unheld;                         // packages whose hold the run released
  std::vector<std::string> versionlocks;                   // dnf versionlock entries the run removed
  std::vector<std::string> stopped;                        // services and processes the run stopped
  bool undone = false;
  bool found = false;
};

RunEffects run_effects(const std::vector<JournalEntry>& journal, const std::string& run);

} // namespace gpudoctor::fix
