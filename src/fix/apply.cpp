#include "fix/apply.hpp"

#include "fix/apply_state.hpp"
#include "fix/events.hpp"
#include "fix/journal.hpp"
#include "fix/record_files.hpp"
#include "fix/script_text.hpp"
#include "system/process.hpp"
#include "system/root_exec.hpp"
#include "system/root_trust.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor::fix {

using escape::one_line;

namespace {

// What in a step's bash installs or removes packages (fixes/lib.bash's package helpers and the package
// managers): such a fix must wait for an unfinished migration.
constexpr std::string_view k_package_words[] = {"gd_install_packages",
                                                "gd_purge_packages",
                                                "gd_prepare_downloads",
                                                "gd_autoremove_orphans",
                                                "gd_purge_config_packages",
                                                "gd_release_holds",
                                                "gd_remove_versionlocks",
                                                "gd_cuda_keyring",
                                                "gd_install_epel",
                                                "gd_switch_module_stream",
                                                "gd_reset_module",
                                                "gd_dkms_remove",
                                                "apt-get",
                                                "apt-mark",
                                                "dpkg",
                                                "dnf",
                                                "rpm"};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

bool has_word(std::string_view text, std::string_view word) {
  for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    bool starts = at == 0 || !word_char(text[at - 1]);
    bool ends = at + word.size() == text.size() || !word_char(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

bool acts_on_packages(const Plan& plan) {
  return std::any_of(plan.steps.begin(), plan.steps.end(), [](const PlannedStep& s) {
    return std::any_of(std::begin(k_package_words), std::end(k_package_words),
                       [&](std::string_view w) { return has_word(s.body, w); });
  });
}

std::string target_of(const std::string& plan_id) {
  constexpr std::string_view prefix = "migrate-to-";
  return plan_id.starts_with(prefix) ? plan_id.substr(prefix.size()) : plan_id;
}

// The machine's migration record (0.1.0 kept it as migrate.json).
std::expected<std::optional<ApplyRecord>, std::string> load_migration(const RecordPlaces& places) {
  auto m = load_record(places, places.migration_file());
  if (!m || *m) return m;
  auto old = load_record(places, places.migration_file_0_1());
  if (old && *old && (*old)->kind != "migration")
    return std::unexpected(fmt::format("{} is no migration", one_line(places.migration_file_0_1())));
  return old;
}

// The record's own file: the migration's, or last-apply.json for a fix. A migration also leaves a pointer
// in last-apply.json, so that `gpudoctor undo` finds it.
bool save(const RecordPlaces& places, const ApplyRecord& rec, Frontend& ui, bool with_pointer = false) {
  bool migration = rec.kind == "migration";
  auto r = save_record(places, migration ? places.migration_file() : places.last_apply_file(),
                       record_to_json(rec));
  if (r && migration && with_pointer) r = save_record(places, places.last_apply_file(), pointer_to_json(rec));
  if (!r) ui.report(event::RecordNotSaved{r.error()});
  return r.has_value();
}

std::string rerun_command(const ApplyRecord& rec, const ApplyOptions& opt) {
  if (!opt.rerun.empty()) return opt.rerun;
  return gpudoctor_command(rec.kind == "migration" ? fmt::format("migrate --to {} --apply", rec.target)
                                                   : fmt::format("fix {} --apply", rec.plan),
                           opt.root);
}

// What the journal says of the record's last run once a step failed: the script put back what the run had
// changed (lib.bash's gd_rollback_run), or the run changed nothing at all. A rollback covers the prepare
// steps of the earlier runs too, back to the last one that went past the prepare stage (its entry names
// them): `rolled_back_steps` are the steps those runs had done, whose changes are gone.
struct FailedRun {
  bool rolled_back = false, changed = true;
  std::vector<std::string> rolled_back_steps;
};
FailedRun failed_run(const RecordPlaces& places, const ApplyRecord& rec) {
  auto text = read_record(places, places.journal(rec.script_id));
  if (!text || !*text) return {false, false, {}};
  auto entries = parse_journal(**text);
  RunEffects fx = run_effects(entries, rec.runs.back());
  const auto& covered = fx.rolled_back_runs;
  FailedRun f{
      std::find(covered.begin(), covered.end(), rec.runs.back()) != covered.end(), changed_anything(fx), {}};
  for (const auto& e : entries)
    if (e.event == "step-done" && std::find(covered.begin(), covered.end(), e.run) != covered.end())
      f.rolled_back_steps.push_back(e.step);
  return f;
}

// The size of what lies below a folder (the undo cache), links not followed: "3.2 GiB", "740 KiB".
std::string folder_size(const std::string& host) {
  std::error_code ec;
  std::uintmax_t bytes = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(host, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) bytes += it->file_size(ec);
  if (bytes >= (std::uintmax_t{1} << 30))
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1 << 30));
  if (bytes >= (std::uintmax_t{1} << 20)) return fmt::format("{} MiB", (bytes + (1 << 19)) >> 20);
  return fmt::format("{} KiB", (bytes + 512) >> 10);
}

std::vector<std::string> step_command(const RecordPlaces& places, const ApplyRecord& rec,
                                      const std::string& step, const ApplyOptions& opt) {
  std::vector<std::string> argv;
  if (!places.root.empty()) argv = {"chroot", places.root};
  argv.insert(argv.end(), {"bash", places.script(rec.script_id), "--step", step, "--run-id", rec.runs.back(),
                           "--no-reboot"});
  if (opt.any_host) argv.push_back("--any-host");
  return argv;
}

event::StepFailed step_failed(const RecordPlaces& places, const ApplyRecord& rec, const std::string& step,
                              int status, const ApplyOptions& opt) {
  using Left = event::StepFailed::Left;
  event::StepFailed e;
  e.step = step;
  e.status = status;
  e.journal = places.journal(rec.script_id);
  e.done = rec.done.size();
  e.total = rec.steps.size();
  if (rec.status == "rolled-back" || rec.status == "stopped") {
    e.left = rec.status == "stopped" ? Left::stopped : Left::rolled_back;
    e.commands = {rerun_command(rec, opt)};
  } else if (rec.kind == "migration") {
    e.left = Left::unfinished;
    e.commands = {gpudoctor_command("migrate --resume", opt.root), gpudoctor_command("undo", opt.root)};
  } else {
    e.left = Left::failed;
    e.commands = {rerun_command(rec, opt), gpudoctor_command("undo", opt.root)};
  }
  return e;
}

// The last apply, when it is an unfinished apply of this fix: a rerun goes on with it.
std::optional<ApplyRecord> unfinished_fix(const RecordPlaces& places, const std::string& fix) {
  auto last = load_record(places, places.last_apply_file());
  if (!last || !*last) return std::nullopt;
  const ApplyRecord& r = **last;
  if (r.kind != "fix" || r.pointer || r.from_0_1 || r.plan != fix || !r.unfinished()) return std::nullopt;
  return r;
}

// Runs the steps of the record's last run that are not done yet, saving the record after each.
Outcome run_steps(const RecordPlaces& places, ApplyRecord& rec, const ApplyOptions& opt, Frontend& ui) {
  if (places.system && running_as_root())
    if (auto d = distrust_for_root(places.script(rec.script_id), places.root))
      return fail(Exit::usage, "root runs only its own script, and {} is {}: nothing was run.",
                  places.script(rec.script_id), d->describe(places.script(rec.script_id)));
  const std::vector<std::string> done_before = rec.done;
  for (std::size_t n = 0; n < rec.steps.size(); ++n) {
    const std::string& id = rec.steps[n];
    if (std::find(rec.done.begin(), rec.done.end(), id) != rec.done.end()) continue;
    ui.report(event::StepStarting{id, n + 1, rec.steps.size()});
    int status = run_foreground(step_command(places, rec, id, opt),
                                ui.steps_output_to_stderr() ? ChildOutput::to_stderr : ChildOutput::inherit);
    if (status == 100) {
      rec.status = "reboot";
      save(places, rec, ui);
      ui.report(event::RebootNeeded{id, rec.kind == "migration"
                                            ? gpudoctor_command("migrate --resume", opt.root)
                                            : rerun_command(rec, opt)});
      return Exit::ok;
    }
    if (status != 0) {
      // A failure in the prepare stage puts back what its run had changed: those steps are to run again.
      // A first run that ends so, or that changed nothing (a refusal), leaves no migration to go on with: a
      // new plan may be made (with --unhold, say).
      FailedRun f = failed_run(places, rec);
      if (f.rolled_back) {
        rec.done = done_before;
        std::erase_if(rec.done, [&](const std::string& step) {
          return std::find(f.rolled_back_steps.begin(), f.rolled_back_steps.end(), step) !=
                 f.rolled_back_steps.end();
        });
      }
      bool first = rec.done.empty() && rec.runs.size() == 1;
      rec.status = first && f.rolled_back ? "rolled-back" : first && !f.changed ? "stopped" : "failed";
      rec.failed_step = id;
      save(places, rec, ui);
      ui.report(step_failed(places, rec, id, status, opt));
      return Exit::findings;
    }
    rec.done.push_back(id);
    if (!save(places, rec, ui)) return Exit::findings;
    ui.report(event::StepDone{id});
  }
  rec.status = "done";
  rec.failed_step.clear();
  save(places, rec, ui);
  event::AllRan all;
  all.steps = rec.done.size();
  all.journal = places.journal(rec.script_id);
  all.undo_command = gpudoctor_command("undo", opt.root);
  all.migration = rec.kind == "migration";
  if (all.migration) {
    all.finish_command = gpudoctor_command("migrate --finish", opt.root);
    all.cache = places.script_cache(rec.script_id);
    all.cache_size = folder_size(places.on_host(all.cache));
  }
  ui.report(all);
  return Exit::ok;
}

// The folders, the lock and the machine's migration record, for an apply, resume or finish as root.
struct Opened {
  RecordPlaces places;
  RecordLock lock;
  std::optional<ApplyRecord> migration;
};

std::expected<Opened, Failure> open_records(const ApplyOptions& opt, bool make_folders) {
  Opened o{places_for(opt.root), {}, std::nullopt};
  if (make_folders)
    if (auto r = prepare_record_folders(o.places); !r) return std::unexpected(r.error());
  auto lock = lock_records(o.places);
  if (!lock) return fail(Exit::usage, "{}", lock.error());
  o.lock = std::move(*lock);
  if (o.places.system) {
    auto m = load_migration(o.places);
    if (!m)
      return fail(
          Exit::usage,
          "{}. Root acts only on its own records: look at the file, then remove it or give it to root, "
          "and run this again.",
          m.error());
    o.migration = std::move(*m);
  }
  return o;
}

// Another run of an unfinished apply: the machine's migration (a rerun of migrate --apply, or --resume),
// or a fix's (a rerun of fix --apply).
Outcome continue_record(const RecordPlaces& places, ApplyRecord& rec, const ApplyOptions& opt, Frontend& ui) {
  std::vector<std::string> left;
  for (const auto& s : rec.steps)
    if (std::find(rec.done.begin(), rec.done.end(), s) == rec.done.end()) left.push_back(s);
  ui.report(event::StepsLeft{rec.script_id, left});
  if (!opt.yes)
    if (Answer a = ui.ask(question::RunLeft{left.size()}); a != Answer::yes) return declined(a, "run");
  auto script = read_record(places, places.script(rec.script_id));
  if (!script || !*script)
    return fail_with(
        Exit::usage,
        fmt::format("the script of the {} ({}) {}: it cannot go on. Put the machine back as it was "
                    "before it:",
                    rec.kind == "migration" ? "migration" : "apply", places.script(rec.script_id),
                    script ? "is gone" : "cannot be used: " + script.error()),
        {gpudoctor_command("undo", opt.root)});
  rec.runs.push_back(new_run_id(rec.runs));
  rec.status = "running";
  rec.failed_step.clear();
  if (!save(places, rec, ui, true)) return Exit::usage;
  return run_steps(places, rec, opt, ui);
}

// What the machine's migration record makes of `migrate --to TARGET --apply`: nullopt when a new migration
// may start, else the exit status of continuing it, saying it is complete, or refusing.
std::optional<Outcome> follow_gate(Opened& o, const std::string& target, const ApplyOptions& opt,
                                   Frontend& ui) {
  auto gate = migration_gate(o.migration, target, opt.root);
  switch (gate.action) {
  case MigrationGate::Action::start:
    return std::nullopt;
  case MigrationGate::Action::resume:
    ui.report(event::MigrationContinues{target, o.migration->script_id, o.migration->progress()});
    if (!opt.ignored.empty()) ui.report(event::OptionsIgnored{opt.ignored});
    return continue_record(o.places, *o.migration, opt, ui);
  case MigrationGate::Action::complete:
    ui.report(event::MigrationComplete{target, o.migration->script_id,
                                       gpudoctor_command("migrate --finish", opt.root)});
    return Exit::ok;
  case MigrationGate::Action::refuse:
    return fail_with(Exit::usage, gate.message, gate.commands);
  }
  return fail(Exit::internal, "the migration record's gate has no action");
}

} // namespace

int run_attached(const std::vector<std::string>& command, const std::string& root, ChildOutput output) {
  std::vector<std::string> argv;
  if (!root.empty()) argv = {"chroot", root};
  argv.insert(argv.end(), command.begin(), command.end());
  return run_foreground(argv, output);
}

Outcome apply_plan(const Plan& plan, const Script& script, const ApplyOptions& opt, bool migration,
                   Frontend& ui) {
  // The app hands such an apply to root (app/root_handoff) before it gets here.
  if (!running_as_root() && (plan.needs_root() || !opt.root.empty()))
    return fail(Exit::usage, "these steps need root: run gpudoctor as root");
  auto o = open_records(opt, true);
  if (!o) return std::unexpected(o.error());
  if (migration) {
    if (auto status = follow_gate(*o, target_of(plan.id), opt, ui)) return *status;
  } else if (auto why = fix_refusal(o->migration, plan.id, acts_on_packages(plan), opt.root)) {
    return std::unexpected(*why);
  }
  if (!migration)
    if (auto unfinished = unfinished_fix(o->places, plan.id)) {
      // The same fix cut off (killed, failed, stopped for a reboot): a plan made now would see the machine
      // half-changed; the recorded script goes on, one more run of that apply, so undo covers them all.
      ui.report(event::FixContinues{plan.id, unfinished->script_id, unfinished->progress()});
      if (!opt.ignored.empty()) ui.report(event::OptionsIgnored{opt.ignored});
      return continue_record(o->places, *unfinished, opt, ui);
    }
  auto last = load_record(o->places, o->places.last_apply_file());
  if (auto why = unfinished_fix_refusal(last ? *last : std::nullopt,
                                        migration ? "migrate --to " + target_of(plan.id) : "fix " + plan.id,
                                        opt.root))
    return std::unexpected(*why);
  ui.report(event::PlanReady{plan});
  if (!migration && o->migration && !o->migration->closed())
    ui.report(event::MigrationNotClosed{o->migration->target, o->migration->script_id,
                                        gpudoctor_command("undo", opt.root)});
  if (!opt.yes)
    if (Answer a = ui.ask(question::RunPlan{plan.steps.size()}); a != Answer::yes) return declined(a, "run");
  if (auto w = atomic_write(o->places.on_host(o->places.script(script.id)), script.text, 0700); !w)
    return fail(Exit::usage, "{}", w.error());
  ApplyRecord rec;
  rec.kind = migration ? "migration" : "fix";
  rec.plan = plan.id;
  rec.target = migration ? target_of(plan.id) : std::string();
  rec.script_id = script.id;
  rec.runs = {new_run_id({})};
  for (const auto& s : plan.steps)
    rec.steps.push_back(s.id);
  rec.family = family_name(plan.os.family);
  rec.needs_root = plan.needs_root();
  rec.version = GPUDOCTOR_VERSION;
  if (!save(o->places, rec, ui, true)) return Exit::usage;
  return run_steps(o->places, rec, opt, ui);
}

std::optional<Outcome> apply_recorded_migration(const std::string& target, const ApplyOptions& opt,
                                                Frontend& ui) {
  if (!running_as_root()) return std::nullopt;
  RecordPlaces places = root_places(opt.root);
  auto m = load_migration(places);
  if (m && (!*m || (*m)->closed())) return std::nullopt;
  // Unreadable, unfinished or done: decided under the lock, with the record read again.
  auto o = open_records(opt, true);
  if (!o) return std::unexpected(o.error());
  return follow_gate(*o, target, opt, ui);
}

Outcome resume_migration(const ApplyOptions& opt, Frontend& ui) {
  if (!running_as_root()) return fail(Exit::usage, "the migration is root's: run gpudoctor as root");
  RecordPlaces places = root_places(opt.root);
  auto m = load_migration(places);
  if (m && (!*m || (*m)->closed()))
    return fail(Exit::usage, "no migration to resume on this machine ({}{})", places.migration_file(),
                *m ? ": " + (*m)->script_id + " was " + (*m)->status : std::string(" is not there"));
  auto o = open_records(opt, true);
  if (!o) return std::unexpected(o.error());
  if (!o->migration || o->migration->closed())
    return fail(Exit::usage, "no migration to resume on this machine");
  ApplyRecord& rec = *o->migration;
  if (rec.status == "done") {
    ui.report(event::NothingToResume{rec.script_id, gpudoctor_command("migrate --finish", opt.root)});
    return Exit::ok;
  }
  ui.report(event::Resuming{rec.script_id, rec.progress()});
  return continue_record(o->places, *o->migration, opt, ui);
}

Outcome finish_migration(const ApplyOptions& opt, Frontend& ui) {
  if (!running_as_root()) return fail(Exit::usage, "the migration is root's: run gpudoctor as root");
  RecordPlaces places = root_places(opt.root);
  auto m = load_migration(places);
  if (m && !*m)
    return fail(Exit::usage, "no migration to finish on this machine ({} is not there)",
                places.migration_file());
  auto o = open_records(opt, false);
  if (!o) return std::unexpected(o.error());
  if (!o->migration) return fail(Exit::usage, "no migration to finish on this machine");
  ApplyRecord& rec = *o->migration;
  if (rec.unfinished())
    return fail_with(
        Exit::usage,
        fmt::format("the migration to {} is not done ({}: {}): --finish frees its undo cache only "
                    "once every step ran. Go on with it, or put the machine back as it was before it:",
                    rec.target, rec.script_id, rec.progress()),
        {gpudoctor_command("migrate --resume", opt.root), gpudoctor_command("undo", opt.root)});
  std::string cache = places.script_cache(rec.script_id);
  std::string host = places.on_host(cache);
  std::error_code ec;
  bool there = std::filesystem::exists(std::filesystem::symlink_status(host, ec));
  if (rec.status == "finished" && !there) {
    ui.report(event::FinishedAlready{rec.script_id});
    return Exit::ok;
  }
  std::string size = folder_size(host);
  if (rec.status == "done" && !opt.yes)
    if (Answer a = ui.ask(question::FreeCache{rec.script_id, size, cache}); a != Answer::yes)
      return declined(a, "freed");
  if (there) {
    if (auto d = distrust_for_root(cache, places.root))
      return fail(Exit::usage, "{} is not root's own folder ({}): not removed", cache, d->describe(cache));
    std::filesystem::remove_all(host, ec); // links inside are removed, not followed
    if (ec)
      return fail_with(
          Exit::findings,
          fmt::format("cannot remove {}: {}. Once the cause is fixed, run this again:", cache, ec.message()),
          {gpudoctor_command("migrate --finish", opt.root)});
  }
  if (rec.status == "done") rec.status = "finished";
  if (!save(o->places, rec, ui)) return Exit::findings;
  ui.report(event::CacheFreed{rec.script_id, rec.status, size, cache, places.journal(rec.script_id),
                              places.backups + "/" + rec.script_id});
  return Exit::ok;
}

} // namespace gpudoctor::fix
