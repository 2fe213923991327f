// What the applier keeps between runs (docs/fixes.md, "Apply state"): the record of an apply, or of the
// machine's one migration, as it is written and read back, and the decisions made on it (start, resume,
// refuse). Pure: fix/record_files.cpp reads and writes the files, fix/apply.cpp and fix/undo.cpp act.
#pragma once

#include "util/diagnostics.hpp"
#include "util/json.hpp"

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::fix {

// Whether `id` may name a script, a run or a step: letters, digits and . _ -, no leading dot, at most 128
// characters. Every path of a record is made from its ids, so an id can never step out of its folder.
bool valid_id(std::string_view id);

// One apply of a fix, or the machine's migration with all its runs (a rerun and --resume add one each).
struct ApplyRecord {
  std::string kind;              // "fix" or "migration"
  std::string plan;              // "purge-rocm", "migrate-to-nvidia"
  std::string target;            // a migration's: "nvidia" or "amd"
  std::string script_id;         // names the script, the journal, the backups and the cache
  std::vector<std::string> runs; // run ids, oldest first
  std::vector<std::string> steps, done;
  // running (or killed while it ran), reboot (stopped for it), failed: unfinished. done: every step ran.
  // stopped (its only run failed before it changed anything), rolled-back (its only run put back all it
  // had changed), undone, finished (migrate --finish): closed.
  std::string status = "running";
  std::string failed_step;
  std::string family = "debian"; // debian or rhel
  bool needs_root = false;
  std::string version;   // of the gpudoctor that wrote it ("" in 0.1.0's records)
  bool pointer = false;  // read from a pointer: kind and script id only
  bool from_0_1 = false; // read from 0.1.0's format (its paths were left out)

  bool unfinished() const { return status == "running" || status == "reboot" || status == "failed"; }
  bool closed() const {
    return status == "stopped" || status == "rolled-back" || status == "undone" || status == "finished";
  }
  // "step X failed, 7 of 15 steps done", for messages.
  std::string progress() const;
};

// The record as this gpudoctor writes it (format 2).
Json record_to_json(const ApplyRecord& r);
// A pointer to a record: kind and script id (root's last-apply.json after a migration).
Json pointer_to_json(const ApplyRecord& r);

// A record read back: format 2, a pointer, or 0.1.0's record (last-apply.json, migrate.json), whose paths
// (script, journal) are ignored: the ids name them. Refused: a document that is not one, an invalid id.
std::expected<ApplyRecord, std::string> record_from_json(const Json& doc);

// The command a message tells the user to run: "gpudoctor ARGS" (with --root R for the tests' roots).
std::string gpudoctor_command(std::string_view args, const std::string& root);

// What `migrate --to TARGET --apply` does with the machine's migration record: start a new migration,
// resume the unfinished one, say that it is complete, or refuse (the message names the recovery commands).
struct MigrationGate {
  enum class Action { start, resume, complete, refuse } action = Action::start;
  std::string message;               // refuse: why (one line)
  std::vector<std::string> commands; // refuse: the commands that clear the way
};
MigrationGate migration_gate(const std::optional<ApplyRecord>& migration, const std::string& target,
                             const std::string& root);

// Why a fix may not be applied now (exit 2, with the commands that clear the way): one that installs or
// removes packages while a migration is unfinished. Nothing when it may.
std::optional<Failure> fix_refusal(const std::optional<ApplyRecord>& migration, const std::string& fix,
                                   bool acts_on_packages, const std::string& root);

// What an unfinished apply of another fix (`last`: the last apply, last-apply.json) makes of a new apply
// (`what`: "fix install-nvidia", "migrate --to amd"): a refusal, as the new apply would replace the record
// that `undo` and a rerun go on from. nullopt when the last apply is closed, done, a pointer, or no fix's.
std::optional<Failure> unfinished_fix_refusal(const std::optional<ApplyRecord>& last, const std::string& what,
                                              const std::string& root);

// A new run id: the UTC time and the process id, unique among `taken`.
std::string new_run_id(const std::vector<std::string>& taken);

} // namespace gpudoctor::fix
