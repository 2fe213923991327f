// What the fix engine (fix/apply.cpp, fix/undo.cpp) reports while it applies, resumes, finishes or undoes,
// and what it asks: facts, never prose. A front end renders them: app/fix_terminal.cpp for a person at a
// terminal, app/fix_events_json.cpp as JSON lines (--events json) for a driver such as the fault matrix, and
// the unit tests record them. How each ends is the engine's Outcome (util/diagnostics.hpp), not an event.
#pragma once

#include "util/diagnostics.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

namespace gpudoctor::fix {

struct Plan;

namespace event {

// One fact of an event by name, for a front end that lists them all (app/fix_events_json.cpp).
template <class T> struct Fact {
  std::string_view name;
  const T& value;
};
template <class T> Fact<T> fact(std::string_view name, const T& value) {
  return {name, value};
}

// ---- apply, resume, finish ----
struct PlanReady { // a new plan, before it is confirmed
  std::reference_wrapper<const Plan> plan;
  static constexpr std::string_view name = "plan";
  auto facts() const { return std::tuple{fact("plan", plan)}; }
};
struct MigrationNotClosed { // a fix applied while the machine's migration is open: undo takes the fix first
  std::string target, script_id, undo_command;
  static constexpr std::string_view name = "migration-not-closed";
  auto facts() const {
    return std::tuple{fact("target", target), fact("script_id", script_id),
                      fact("undo_command", undo_command)};
  }
};
struct MigrationContinues { // migrate --to T --apply while the migration to T is unfinished
  std::string target, script_id, progress;
  static constexpr std::string_view name = "migration-continues";
  auto facts() const {
    return std::tuple{fact("target", target), fact("script_id", script_id), fact("progress", progress)};
  }
};
struct FixContinues { // fix F --apply while the last apply, of F, is unfinished: its recorded script goes on
  std::string fix, script_id, progress;
  static constexpr std::string_view name = "fix-continues";
  auto facts() const {
    return std::tuple{fact("fix", fix), fact("script_id", script_id), fact("progress", progress)};
  }
};
struct MigrationComplete { // migrate --to T --apply once the migration to T is done
  std::string target, script_id, finish_command;
  static constexpr std::string_view name = "migration-complete";
  auto facts() const {
    return std::tuple{fact("target", target), fact("script_id", script_id),
                      fact("finish_command", finish_command)};
  }
};
struct OptionsIgnored { // options of a new plan given to a run that continues the recorded one
  std::vector<std::string> options;
  static constexpr std::string_view name = "options-ignored";
  auto facts() const { return std::tuple{fact("options", options)}; }
};
struct Resuming { // migrate --resume
  std::string script_id, progress;
  static constexpr std::string_view name = "resuming";
  auto facts() const { return std::tuple{fact("script_id", script_id), fact("progress", progress)}; }
};
struct StepsLeft { // a run that continues a migration or a fix's apply, before it is confirmed
  std::string script_id;
  std::vector<std::string> steps;
  static constexpr std::string_view name = "steps-left";
  auto facts() const { return std::tuple{fact("script_id", script_id), fact("steps", steps)}; }
};
struct StepStarting {
  std::string step;
  std::size_t number = 0, total = 0; // 1-based among the record's steps
  static constexpr std::string_view name = "step-starting";
  auto facts() const { return std::tuple{fact("step", step), fact("number", number), fact("total", total)}; }
};
struct StepDone {
  std::string step;
  static constexpr std::string_view name = "step-done";
  auto facts() const { return std::tuple{fact("step", step)}; }
};
struct RebootNeeded { // a step asked for a reboot: the run stops, the command goes on after it
  std::string step, continue_command;
  static constexpr std::string_view name = "reboot-needed";
  auto facts() const { return std::tuple{fact("step", step), fact("continue_command", continue_command)}; }
};
struct StepFailed {
  // rolled_back: the script put back what this run changed; stopped: it failed before changing anything;
  // unfinished: a migration that goes on (resume) or is undone; failed: a fix to run again or undo.
  enum class Left { rolled_back, stopped, unfinished, failed } left = Left::failed;
  std::string step;
  int status = 0;
  std::string journal;
  std::size_t done = 0, total = 0;
  std::vector<std::string> commands; // what recovers, in the order a person would try them
  static constexpr std::string_view name = "step-failed";
  auto facts() const {
    return std::tuple{fact("step", step),        fact("status", status), fact("left", left),
                      fact("journal", journal),  fact("done", done),     fact("total", total),
                      fact("commands", commands)};
  }
};
struct AllRan {
  std::size_t steps = 0;
  std::string journal, undo_command;
  bool migration = false;
  std::string finish_command, cache, cache_size; // a migration's undo cache, and how much it holds
  static constexpr std::string_view name = "all-ran";
  auto facts() const {
    return std::tuple{fact("steps", steps),
                      fact("journal", journal),
                      fact("undo_command", undo_command),
                      fact("migration", migration),
                      fact("finish_command", finish_command),
                      fact("cache", cache),
                      fact("cache_size", cache_size)};
  }
};
struct NothingToResume { // migrate --resume of a migration that is done
  std::string script_id, finish_command;
  static constexpr std::string_view name = "nothing-to-resume";
  auto facts() const {
    return std::tuple{fact("script_id", script_id), fact("finish_command", finish_command)};
  }
};
struct FinishedAlready {
  std::string script_id;
  static constexpr std::string_view name = "finished-already";
  auto facts() const { return std::tuple{fact("script_id", script_id)}; }
};
struct CacheFreed { // migrate --finish
  std::string script_id, status, size, cache, journal, backups;
  static constexpr std::string_view name = "cache-freed";
  auto facts() const {
    return std::tuple{fact("script_id", script_id), fact("status", status),   fact("size", size),
                      fact("cache", cache),         fact("journal", journal), fact("backups", backups)};
  }
};
struct RecordNotSaved { // a record could not be written; the run's outcome says what follows from it
  std::string error;
  static constexpr std::string_view name = "record-not-saved";
  auto facts() const { return std::tuple{fact("error", error)}; }
};

// ---- undo ----
struct UndoneAlready {
  std::string what;
  static constexpr std::string_view name = "undone-already";
  auto facts() const { return std::tuple{fact("what", what)}; }
};
struct NothingToUndo {
  // stopped, rolled_back: the run's own rollback left nothing; no_run: the journal has no run of the script;
  // no_entries: it has nothing of the runs named.
  enum class Why { stopped, rolled_back, no_run, no_entries } why = Why::no_run;
  std::string what, journal;
  std::vector<std::string> runs;
  static constexpr std::string_view name = "nothing-to-undo";
  auto facts() const {
    return std::tuple{fact("why", why), fact("what", what), fact("journal", journal), fact("runs", runs)};
  }
};
struct KeptFileRefused { // a journal entry whose kept file is not in its run's own folder: not acted on
  enum class Kind { backup, cached_package } kind = Kind::backup;
  std::string subject, copy, run, why; // subject: the file to restore, or the package
  static constexpr std::string_view name = "kept-file-refused";
  auto facts() const {
    return std::tuple{fact("kind", kind), fact("subject", subject), fact("copy", copy), fact("run", run),
                      fact("why", why)};
  }
};
struct Undoing {
  std::string what;
  std::vector<std::string> runs; // newest first
  static constexpr std::string_view name = "undoing";
  auto facts() const { return std::tuple{fact("what", what), fact("runs", runs)}; }
};
struct FileRestored {
  std::string file;
  bool ok = true;
  std::string error;
  static constexpr std::string_view name = "file-restored";
  auto facts() const { return std::tuple{fact("file", file), fact("ok", ok), fact("error", error)}; }
};
struct CreatedRemoved {
  std::string file;
  static constexpr std::string_view name = "created-removed";
  auto facts() const { return std::tuple{fact("file", file)}; }
};
struct PackageCommand {
  // why: what the command puts back ("the runs removed packages; they come back from the cache").
  enum class Why {
    dpkg_recover,
    from_cache,
    auto_marks,
    selections,
    purge_installed,
    holds,
    versionlock,
    module_stream
  } why;
  std::vector<std::string> argv;
  std::string shown; // how to show a long argv ("apt-get install ... 112 .deb files of DIR"); empty: argv
  bool runs = true;  // false: a user's undo, which only names it for root
  static constexpr std::string_view name = "package-command";
  auto facts() const {
    return std::tuple{fact("why", why), fact("argv", argv), fact("shown", shown), fact("runs", runs)};
  }
};
struct PackageCommandFailed {
  int status = 0;
  static constexpr std::string_view name = "package-command-failed";
  auto facts() const { return std::tuple{fact("status", status)}; }
};
struct ReinstallByName { // removed packages with no cached .deb: the command a person runs
  std::string command;
  std::vector<std::string> packages;
  static constexpr std::string_view name = "reinstall-by-name";
  auto facts() const { return std::tuple{fact("command", command), fact("packages", packages)}; }
};
struct TreeNotRestored { // removed without a backup
  std::string tree;
  static constexpr std::string_view name = "tree-not-restored";
  auto facts() const { return std::tuple{fact("tree", tree)}; }
};
struct GroupAdded {
  std::string user, group;
  static constexpr std::string_view name = "group-added";
  auto facts() const { return std::tuple{fact("user", user), fact("group", group)}; }
};
struct PipChanged {
  std::string change;
  static constexpr std::string_view name = "pip-changed";
  auto facts() const { return std::tuple{fact("change", change)}; }
};
struct ServiceStopped {
  std::string service;
  static constexpr std::string_view name = "service-stopped";
  auto facts() const { return std::tuple{fact("service", service)}; }
};
struct Undone {
  std::string what;
  static constexpr std::string_view name = "undone";
  auto facts() const { return std::tuple{fact("what", what)}; }
};

} // namespace event

using Event =
    std::variant<event::PlanReady, event::MigrationNotClosed, event::MigrationContinues, event::FixContinues,
                 event::MigrationComplete, event::OptionsIgnored, event::Resuming, event::StepsLeft,
                 event::StepStarting, event::StepDone, event::RebootNeeded, event::StepFailed, event::AllRan,
                 event::NothingToResume, event::FinishedAlready, event::CacheFreed, event::RecordNotSaved,
                 event::UndoneAlready, event::NothingToUndo, event::KeptFileRefused, event::Undoing,
                 event::FileRestored, event::CreatedRemoved, event::PackageCommand,
                 event::PackageCommandFailed, event::ReinstallByName, event::TreeNotRestored,
                 event::GroupAdded, event::PipChanged, event::ServiceStopped, event::Undone>;

namespace question {
struct RunPlan {
  std::size_t steps = 0;
};
struct RunLeft {
  std::size_t steps = 0;
};
struct FreeCache {
  std::string script_id, size, cache;
};
struct Undo {
  std::size_t restores = 0, removals = 0;
};
} // namespace question

using Question = std::variant<question::RunPlan, question::RunLeft, question::FreeCache, question::Undo>;

// cannot_ask: no one to ask (stdin is no terminal, or a driver without --yes); the engine refuses then.
enum class Answer { yes, no, cannot_ask };

// A question answered no, or that no one could be asked: nothing was done (exit 2). `what`: "run", "undone".
inline Outcome declined(Answer answer, const char* what) {
  return fail(Exit::usage, "nothing was {}{}", what,
              answer == Answer::cannot_ask ? " (not a terminal: pass --yes)" : "");
}

// The engine's one way out: every line it would say and every question it would ask.
class Frontend {
public:
  virtual ~Frontend() = default;
  virtual void report(const Event& e) = 0;
  virtual Answer ask(const Question& q) = 0;
  // How the command ended (the app calls it once, last): a driver reads it as its last event.
  virtual void end(const Outcome&) {}
  // Whether the children's standard output goes to stderr (a driver that reads events on stdout).
  virtual bool steps_output_to_stderr() const { return false; }
};

} // namespace gpudoctor::fix
