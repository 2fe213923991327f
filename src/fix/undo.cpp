// gpudoctor undo: the runs of an apply read back from its journal; their backups restored, what they
// created removed, their packages put back. As root, only from root's own records (fix/record_files.hpp):
// the record names ids, the ids name the journal, the backups and the cache, and every backup and cached
// package the journal names must lie in its run's folder.
#include "fix/apply.hpp"
#include "fix/apply_state.hpp"
#include "fix/events.hpp"
#include "fix/journal.hpp"
#include "fix/record_files.hpp"
#include "fix/script_text.hpp"
#include "parse/parsers_system.hpp"
#include "system/root_exec.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"
#include "util/utc_time.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <expected>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor::fix {

using escape::one_line;

namespace {

using Why = event::PackageCommand::Why;

// Runs a package command as root (in `chroot ROOT` for tests), or names it for the user to run. `shown`:
// how to show it when the argv is long (a hundred cached .debs). The number of failures (0 or 1).
int package_command(Frontend& ui, const std::vector<std::string>& argv, const std::string& root, Why why,
                    const std::string& shown = {}) {
  bool runs = running_as_root();
  ui.report(event::PackageCommand{why, argv, shown, runs});
  if (!runs) return 0;
  int status =
      run_attached(argv, root, ui.steps_output_to_stderr() ? ChildOutput::to_stderr : ChildOutput::inherit);
  if (status != 0) ui.report(event::PackageCommandFailed{status});
  return status == 0 ? 0 : 1;
}

// Of the packages the runs installed, those dpkg has in any state (unpacked, half-configured, installed,
// config-files): an install killed halfway had unpacked only some of those it planned (install-planned), and
// apt-get purge refuses the whole list for one name that is not on the machine.
std::vector<std::string> present_of(const std::vector<std::string>& names, const std::string& root) {
  auto status = read_whole_file(root + "/var/lib/dpkg/status");
  if (!status) return names; // apt says what is wrong
  std::set<std::string> present;
  for (const auto& r : parse::dpkg_records(*status))
    if (!r.status.empty() && r.status != "not-installed") present.insert(r.name);
  std::vector<std::string> out;
  for (const auto& name : names)
    if (present.contains(name.substr(0, name.find(':')))) out.push_back(name);
  return out;
}

// dpkg was interrupted (a run killed while a driver's postinst built its module): its updates journal holds
// entries, and apt refuses every command until `dpkg --configure -a` has finished them, as the scripts'
// gd_dpkg_recover does before a package step.
bool dpkg_interrupted(const std::string& root) {
  std::error_code ec;
  std::filesystem::directory_iterator it(root + "/var/lib/dpkg/updates", ec);
  return !ec && it != std::filesystem::directory_iterator();
}

// The packages of the runs: the old ones back first (from the script's cache: their repository may be
// gone), then what the runs installed out (the old ones already satisfy what needs either), then the holds
// and locks. `cached`: the .debs and RPMs that passed check_kept_file. A dpkg root (--root) is entered with
// chroot; an RPM root is acted on from outside, as dnf does it (--installroot), its cached RPMs by their
// path here.
int undo_packages(Frontend& ui, const RunEffects& fx, const RecordPlaces& places, bool rhel) {
  const std::string& root = places.root;
  int failures = 0;
  bool installroot = rhel && !root.empty();
  auto command = [&](std::vector<std::string> argv, Why why, const std::string& shown = {}) {
    if (!installroot) return package_command(ui, argv, root, why, shown);
    argv.insert(argv.begin() + 1, {"--installroot", root});
    return package_command(ui, argv, "", why, shown);
  };
  if (!rhel && (!fx.purged.empty() || !fx.installed.empty()) && dpkg_interrupted(root))
    failures += command({"dpkg", "--configure", "-a"}, Why::dpkg_recover);
  std::vector<std::string> from_cache, by_name;
  for (const auto& [name, version] : fx.purged) {
    auto it = fx.cached.find(name);
    if (it != fx.cached.end())
      from_cache.push_back(installroot ? root + it->second : it->second);
    else
      by_name.push_back(name + (version.empty() ? "" : (rhel ? "-" : "=") + version));
  }
  // What the runs installed goes: after the old packages are back (two stacks side by side, a migration),
  // or before, where the runs purged the distribution's builds for an install that may share their files.
  // dnf without its autoremove (clean_requirements_on_remove, on by default): what the old packages need
  // was there before the runs.
  auto purge_installed = [&] {
    std::vector<std::string> installed = rhel ? fx.installed : present_of(fx.installed, root);
    if (installed.empty()) return;
    std::vector<std::string> argv =
        rhel ? std::vector<std::string>{"dnf", "remove", "-y", "--noautoremove"}
             : std::vector<std::string>{"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "purge", "-y",
                                        "-q"};
    argv.insert(argv.end(), installed.begin(), installed.end());
    failures += command(argv, Why::purge_installed);
  };
  if (fx.replaced) purge_installed();
  // The module streams as they were, before the old packages come back: dnf installs a modular package only
  // from its module's enabled stream (a reset, then the old stream enabled again).
  for (const auto& [module, stream] : fx.module_streams) {
    failures += command({"dnf", "-y", "-q", "module", "reset", module}, Why::module_stream);
    if (!stream.empty())
      failures += command({"dnf", "-y", "-q", "module", "enable", module + ":" + stream}, Why::module_stream);
  }
  std::string cache_dir =
      from_cache.empty() ? std::string() : from_cache.front().substr(0, from_cache.front().rfind('/'));
  if (!from_cache.empty() && rhel) {
    // dnf installs the exact versions of local RPMs, downgrading what a switch had upgraded.
    std::vector<std::string> argv = {"dnf", "install", "-y", "-q"};
    argv.insert(argv.end(), from_cache.begin(), from_cache.end());
    failures += command(argv, Why::from_cache,
                        fmt::format("dnf install {} RPM files of {}", from_cache.size(), cache_dir));
    if (!fx.planned_versions.empty()) {
      // A transaction cut off (a kill, the power) on an sqlite rpm database, RHEL 9's, commits none of its
      // database changes, yet rpm has written the files of the packages it reached: the old packages'
      // entries stand over the new ones' files, and the install above skips them as installed. Reinstalled,
      // each has its own files again.
      argv[1] = "reinstall";
      failures += command(argv, Why::from_cache,
                          fmt::format("dnf reinstall {} RPM files of {}", from_cache.size(), cache_dir));
    }
  } else if (!from_cache.empty()) {
    std::vector<std::string> argv = {"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y",
                                     "-q", "--allow-downgrades", "--no-install-recommends",
                                     // apt reads local .debs as its sandbox user, whom a folder of the cache
                                     // may keep out; they are root's own files, checked above (no download)
                                     "-o", "APT::Sandbox::User=root"};
    argv.insert(argv.end(), from_cache.begin(), from_cache.end());
    failures += command(argv, Why::from_cache,
                        "apt-get install --allow-downgrades " + std::to_string(from_cache.size()) +
                            " .deb files of " + cache_dir);
    if (!fx.auto_marked.empty()) {
      std::vector<std::string> mark = {"apt-mark", "auto"};
      mark.insert(mark.end(), fx.auto_marked.begin(), fx.auto_marked.end());
      failures += command(mark, Why::auto_marks);
    }
    // A purge killed in the middle leaves the packages it had not reached selected for purge (dpkg's "pi"):
    // installed, so apt leaves them be above, yet scheduled to go at the next dselect-upgrade or pending run.
    std::vector<std::string> select = {"apt-mark", "install"};
    for (const auto& [name, version] : fx.purged)
      if (fx.cached.contains(name)) select.push_back(name); // installed again from the cache above
    failures += command(select, Why::selections,
                        "apt-mark install (" + std::to_string(select.size() - 2) + " packages)");
  }
  if (rhel && !fx.planned_versions.empty()) {
    // The new versions an RPM transaction cut off left beside their old ones (duplicates, on a Berkeley DB
    // rpm database: RHEL 8's): now that the old ones are back, each new one still installed is one of those
    // (one the transaction had finished was downgraded by the install above), and taking it out leaves what
    // needs the package to the old one.
    std::vector<std::string> argv = {"dnf", "remove", "-y", "-q", "--noautoremove"};
    argv.insert(argv.end(), fx.planned_versions.begin(), fx.planned_versions.end());
    failures += command(argv, Why::purge_installed);
  }
  if (!by_name.empty()) ui.report(event::ReinstallByName{rhel ? "dnf install" : "apt-get install", by_name});
  if (!fx.replaced) purge_installed();
  if (!fx.unheld.empty()) {
    std::vector<std::string> argv = {"apt-mark", "hold"};
    argv.insert(argv.end(), fx.unheld.begin(), fx.unheld.end());
    failures += command(argv, Why::holds);
  }
  if (!fx.versionlocks.empty()) {
    // --raw: each entry locked again as it was written, not resolved against the packages dnf sees.
    std::vector<std::string> lock = {"dnf", "-q", "versionlock", "add", "--raw"};
    if (installroot) {
      // The plugin names its list by an absolute path that --installroot does not move: it would lock on
      // this host. For this command it reads a configuration naming the root's list (lib.bash's
      // gd_versionlock does the same), kept in root's own state folder below the root.
      std::string conf = places.on_host(places.state) + "/dnf-plugins";
      auto w = atomic_write(
          conf + "/versionlock.conf",
          fmt::format("[main]\nenabled = 1\nlocklist = {}/etc/dnf/plugins/versionlock.list\n", root), 0600);
      if (!w) {
        ui.report(
            event::RecordNotSaved{fmt::format("dnf's versionlock plugin cannot be pointed at the root's "
                                              "list ({}): not locked again: {}",
                                              w.error(), text::join(fx.versionlocks, " "))});
        return failures + 1;
      }
      lock.insert(lock.begin() + 2, "--setopt=pluginconfpath=" + conf);
    }
    lock.insert(lock.end(), fx.versionlocks.begin(), fx.versionlocks.end());
    failures += command(lock, Why::versionlock);
  }
  for (const auto& s : fx.stopped)
    ui.report(event::ServiceStopped{s});
  return failures;
}

// Appends the `undone` entries to root's journal (opened without following a link).
std::expected<void, std::string> note_undone(const RecordPlaces& places, const std::string& script_id,
                                             const std::vector<std::string>& runs) {
  std::string path = places.on_host(places.journal(script_id));
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0) return std::unexpected(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  std::string lines;
  for (const auto& run : runs)
    lines += fmt::format("{}\t{}\t-\tundone\n", utc::now_iso8601(), run);
  bool ok = ::write(fd, lines.data(), lines.size()) == static_cast<ssize_t>(lines.size());
  int err = errno;
  if (::fsync(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  ::close(fd);
  if (!ok) return std::unexpected(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  return {};
}

// The family of a script kept in the records, else empty (a script run by hand; 0.1.0's user-started
// apply): its journal's start entry says it then.
std::string family_of_script(const RecordPlaces& places, const std::string& script_id) {
  auto text = read_record(places, places.script(script_id));
  if (!text || !*text) return "";
  return (*text)->find("\nGD_FAMILY=rhel\n") != std::string::npos ? "rhel" : "debian";
}

// What an undo acts on: a record (saved again as undone), or a script's runs known only from its journal.
struct Target {
  ApplyRecord rec;
  bool saved = false;   // the record has a file of its own (migration.json, last-apply.json)
  bool all_runs = true; // the record's runs, not some of them (--run)
};

// A target that cannot be found is the user's to look into (exit 2).
std::expected<Target, Failure> usage_error(std::expected<Target, std::string> t) {
  if (t) return std::move(*t);
  return fail(Exit::usage, "{}", t.error());
}

std::expected<std::optional<ApplyRecord>, std::string> load_migration_record(const RecordPlaces& places) {
  auto m = load_record(places, places.migration_file());
  if (!m || *m) return m;
  return load_record(places, places.migration_file_0_1());
}

// The record root keeps of script `id` (the migration's, or the last fix's), else one made from the ids.
std::expected<Target, std::string> target_of_script(const RecordPlaces& places, const std::string& id,
                                                    const std::vector<std::string>& runs) {
  auto m = load_migration_record(places);
  if (!m) return std::unexpected(m.error());
  auto last = load_record(places, places.last_apply_file());
  if (!last) return std::unexpected(last.error());
  Target t;
  if (*m && (*m)->script_id == id) {
    t = {**m, true, true};
  } else if (*last && !(*last)->pointer && (*last)->script_id == id) {
    t = {**last, true, true};
  } else {
    t.rec.kind = "fix";
    t.rec.plan = id;
    t.rec.script_id = id;
    t.rec.status = "done";
    t.rec.family = family_of_script(places, id);
  }
  if (!runs.empty()) {
    t.all_runs = t.rec.runs.empty() || t.rec.runs == runs;
    t.rec.runs = runs;
  }
  return t;
}

// root's undo without a selection: the last apply (last-apply.json, a fix's record or a migration's pointer).
std::expected<Target, std::string> last_target(const RecordPlaces& places) {
  auto last = load_record(places, places.last_apply_file());
  if (!last) return std::unexpected(last.error());
  if (!*last) {
    auto m = load_migration_record(places);
    if (!m) return std::unexpected(m.error());
    if (!*m)
      return std::unexpected(fmt::format("no apply to undo on this machine ({} is not there)",
                                         one_line(places.last_apply_file())));
    return Target{**m, true, true};
  }
  // A fix applied while the migration was open, undone already: the next undo walks back to the migration.
  if ((*last)->kind == "fix" && (*last)->status == "undone") {
    auto m = load_migration_record(places);
    if (!m) return std::unexpected(m.error());
    if (*m && !(*m)->closed()) return Target{**m, true, true};
  }
  if ((*last)->kind == "migration") {
    auto t = target_of_script(places, (*last)->script_id,
                              (*last)->pointer ? std::vector<std::string>{} : (*last)->runs);
    if (t && (*last)->pointer && t->rec.kind != "migration")
      return std::unexpected(fmt::format("{} names the migration {}, whose record is gone",
                                         one_line(places.last_apply_file()), (*last)->script_id));
    return t;
  }
  return Target{**last, true, true};
}

// --state FILE as root: a record root owns is a pointer to root's own records; a file another user can
// change is refused, with the command that undoes the same apply from root's records.
std::expected<Target, Failure> state_file_target(const RecordPlaces& places, const std::string& file,
                                                 const std::string& root) {
  // A file below a test's root is judged as that machine names it (the folders above the root are not).
  RecordPlaces here = root_places("");
  std::string path = file;
  if (!places.root.empty() && file.starts_with(places.root + "/")) {
    here = places;
    path = file.substr(places.root.size());
  }
  auto rec = load_record(here, path);
  if (rec && *rec)
    return usage_error(target_of_script(places, (*rec)->script_id,
                                        (*rec)->pointer ? std::vector<std::string>{} : (*rec)->runs));
  if (rec) return fail(Exit::usage, "no apply to undo: {} is not there", file);
  // Refused: name the root-side command, with the ids the file names when they are ids.
  std::string command = gpudoctor_command("undo", root);
  RecordPlaces plain = root_places(""); // read as a plain file (no link, no FIFO), only for its ids
  plain.system = false;
  if (auto text = read_record(plain, file); text && *text)
    if (auto doc = parse_json(**text))
      if (auto parsed = record_from_json(*doc); parsed && !parsed->pointer)
        command = gpudoctor_command(
            fmt::format("undo --script {}{}", parsed->script_id,
                        parsed->runs.size() == 1 ? " --run " + parsed->runs.front() : std::string()),
            root);
  return fail_with(
      Exit::usage,
      fmt::format("{}. Root undoes only from its own records ({}, {}, {}, {}), never from a file "
                  "another user can change. Root's journal names that apply by its ids; as root:",
                  rec.error(), places.state, places.log, places.backups, places.cache),
      {command});
}

std::string undo_command(const UndoRequest& req, const Target& t) {
  if (req.script_id.empty() && req.state_file.empty()) return gpudoctor_command("undo", req.root);
  return gpudoctor_command(
      fmt::format("undo --script {}{}", t.rec.script_id, t.all_runs ? "" : " --run " + t.rec.runs.front()),
      req.root);
}

void mark_undone(const RecordPlaces& places, Target& t, Frontend& ui) {
  if (!t.saved || !t.all_runs) return;
  t.rec.status = "undone";
  std::string path = t.rec.kind == "migration" ? places.migration_file() : places.last_apply_file();
  if (auto r = save_record(places, path, record_to_json(t.rec)); !r)
    ui.report(event::RecordNotSaved{r.error()});
}

Outcome undo_target(const RecordPlaces& places, Target& t, const UndoRequest& req, Frontend& ui) {
  const ApplyRecord& rec = t.rec;
  std::string what = rec.kind == "migration" ? "the migration " + rec.script_id : rec.script_id;
  if (rec.status == "finished")
    return fail_with(
        Exit::usage,
        fmt::format("{} was finished (migrate --finish): its undo cache is freed, so undo cannot put the old "
                    "stack back. A new migration goes the other way:",
                    what),
        {gpudoctor_command(fmt::format("migrate --to {} --apply", rec.target == "nvidia" ? "amd" : "nvidia"),
                           req.root)});
  if (rec.status == "undone" && t.all_runs) {
    ui.report(event::UndoneAlready{what});
    return Exit::ok;
  }
  using Nothing = event::NothingToUndo;
  if (rec.status == "rolled-back" || rec.status == "stopped") {
    ui.report(
        Nothing{rec.status == "stopped" ? Nothing::Why::stopped : Nothing::Why::rolled_back, what, "", {}});
    return Exit::ok;
  }
  auto text = read_record(places, places.journal(rec.script_id));
  if (!text) return fail(Exit::usage, "{}: undo acts only on root's own journal", text.error());
  auto entries = parse_journal(text->value_or(""));
  std::vector<std::string> runs = rec.runs.empty() ? journal_runs(entries) : rec.runs;
  RunEffects all = run_effects(entries, runs);
  std::vector<std::string> pending;
  for (const auto& r : journal_runs(entries))
    if (std::find(runs.begin(), runs.end(), r) != runs.end() &&
        std::find(all.undone_runs.begin(), all.undone_runs.end(), r) == all.undone_runs.end())
      pending.push_back(r);
  if (pending.empty()) {
    if (all.found)
      ui.report(event::UndoneAlready{what});
    else
      ui.report(Nothing{runs.empty() ? Nothing::Why::no_run : Nothing::Why::no_entries, rec.script_id,
                        places.journal(rec.script_id), runs});
    mark_undone(places, t, ui);
    return Exit::ok;
  }
  RunEffects fx = run_effects(entries, pending);
  // Only what lies in root's own folders of these runs is acted on.
  int failures = 0;
  std::vector<Backup> backups;
  for (const auto& b : fx.backups) {
    auto ok = check_kept_file(places, places.run_backups(rec.script_id, b.run), b.copy);
    if (ok && !b.file.empty() && b.file[0] == '/') {
      backups.push_back(b);
      continue;
    }
    ui.report(event::KeptFileRefused{event::KeptFileRefused::Kind::backup, b.file, b.copy, b.run,
                                     ok ? "not an absolute path" : ok.error()});
    ++failures;
  }
  for (auto it = fx.cached.begin(); it != fx.cached.end();) {
    auto ok = check_kept_file(places, places.script_cache(rec.script_id), it->second);
    if (ok) {
      ++it;
      continue;
    }
    ui.report(event::KeptFileRefused{event::KeptFileRefused::Kind::cached_package, it->first, it->second, "",
                                     ok.error()});
    it = fx.cached.erase(it);
  }
  std::vector<std::string> newest_first(pending.rbegin(), pending.rend());
  ui.report(event::Undoing{what, newest_first});
  if (!req.yes)
    if (Answer a = ui.ask(question::Undo{backups.size(), fx.created.size()}); a != Answer::yes)
      return declined(a, "undone");
  const std::string& root = places.root;
  for (auto it = backups.rbegin(); it != backups.rend(); ++it) {
    auto r = atomic_copy(root + it->copy, root + it->file);
    ui.report(event::FileRestored{it->file, r.has_value(), r ? std::string() : r.error()});
    if (!r) ++failures;
  }
  for (const auto& f : fx.created) {
    if (f.empty() || f[0] != '/') continue;
    std::error_code ec;
    if (std::filesystem::remove(root + f, ec)) ui.report(event::CreatedRemoved{f});
  }
  // A journal without the family in its start entry is 0.1.0's, made for Debian and Ubuntu only.
  std::string family = !rec.family.empty() ? rec.family : !all.family.empty() ? all.family : "debian";
  failures += undo_packages(ui, fx, places, family == "rhel");
  for (const auto& tree : fx.trees)
    ui.report(event::TreeNotRestored{tree});
  for (const auto& [user, group] : fx.groups)
    ui.report(event::GroupAdded{user, group});
  for (const auto& p : fx.pip)
    ui.report(event::PipChanged{p});
  if (failures)
    return fail_with(
        Exit::findings,
        fmt::format("undo did not finish: {} of its actions failed (above). What it put back stays "
                    "back; once the cause is fixed, run it again:",
                    failures),
        {undo_command(req, t)});
  // Unrecorded, a second undo would restore the same backups over what came after: say so, exit 2.
  if (auto noted = note_undone(places, rec.script_id, pending); !noted)
    return fail(Exit::usage, "the files are restored, but {}", noted.error());
  mark_undone(places, t, ui);
  ui.report(event::Undone{what});
  return Exit::ok;
}

} // namespace

Outcome undo_apply(const UndoRequest& req, Frontend& ui) {
  if (!req.script_id.empty() && !valid_id(req.script_id))
    return fail(Exit::usage, "--script {} is no script id", req.script_id);
  if (!req.run.empty() && !valid_id(req.run)) return fail(Exit::usage, "--run {} is no run id", req.run);
  RecordPlaces places = places_for(req.root);
  std::vector<std::string> runs;
  if (!req.run.empty()) runs.push_back(req.run);
  std::expected<Target, Failure> t = fail(Exit::internal, "no undo target");
  if (!places.system) {
    // A user's own apply (its steps ran as that user): its record, or the one --state names.
    RecordPlaces own = places;
    own.root = "";
    auto rec = req.state_file.empty() ? load_record(own, own.last_apply_file())
                                      : load_record(root_places(""), req.state_file);
    if (!rec || !*rec)
      t = fail(Exit::usage, "{}",
               rec ? fmt::format("no apply to undo ({} is not there)",
                                 req.state_file.empty() ? own.last_apply_file() : req.state_file)
                   : rec.error());
    else
      t = Target{**rec, req.state_file.empty(), true};
  } else if (!req.state_file.empty()) {
    t = state_file_target(places, req.state_file, req.root);
  } else if (!req.script_id.empty()) {
    t = usage_error(target_of_script(places, req.script_id, runs));
  } else {
    t = usage_error(last_target(places));
  }
  if (!t) return std::unexpected(t.error());
  // Root's folders: made where missing (the lock lives there; 0.1.0 kept no record of a user's apply), and
  // judged by the trust rule before anything below them is acted on.
  if (places.system)
    if (auto r = prepare_record_folders(places); !r) return std::unexpected(r.error());
  auto lock = lock_records(places);
  if (!lock) return fail(Exit::usage, "{}", lock.error());
  return undo_target(places, *t, req, ui);
}

UserUndo user_undo(const UndoRequest& req) {
  UserUndo out;
  std::vector<std::string> yes = req.yes ? std::vector<std::string>{"--yes"} : std::vector<std::string>{};
  auto with_yes = [&](std::vector<std::string> args) {
    args.insert(args.end(), yes.begin(), yes.end());
    return args;
  };
  if (!req.root.empty() || !req.script_id.empty()) {
    // A test's root and a script named by id are root's records.
    std::vector<std::string> args = {"undo"};
    if (!req.root.empty()) args.insert(args.end(), {"--root", req.root});
    if (!req.script_id.empty()) args.insert(args.end(), {"--script", req.script_id});
    if (!req.run.empty()) args.insert(args.end(), {"--run", req.run});
    return {UserUndo::Kind::root, with_yes(args), {}};
  }
  RecordPlaces own = user_places();
  std::string file = req.state_file.empty() ? own.last_apply_file() : req.state_file;
  auto text = read_whole_file(file);
  if (!text) {
    out.refusal = {
        Exit::usage,
        fmt::format("no apply of yours to undo ({} is not there). Root's applies are undone by root:", file),
        {"sudo gpudoctor undo"}};
    return out;
  }
  auto doc = parse_json(*text);
  if (doc && doc->is_object() && json_string(*doc, "kind").value_or("") == "root")
    return {UserUndo::Kind::root, with_yes({"undo"}), {}}; // note_root_apply's pointer
  auto rec = doc ? record_from_json(*doc) : std::unexpected(doc.error());
  if (!rec) {
    out.refusal = {Exit::usage, fmt::format("{} is no record of an apply: {}", file, rec.error()), {}};
    return out;
  }
  // 0.1.0 ran a user's root steps through sudo and kept the record here: root's journal has the run.
  if (rec->needs_root && !rec->pointer && !rec->runs.empty())
    return {
        UserUndo::Kind::root, with_yes({"undo", "--script", rec->script_id, "--run", rec->runs.back()}), {}};
  out.kind = UserUndo::Kind::own;
  return out;
}

std::expected<void, std::string> note_root_apply(const std::string& what) {
  RecordPlaces own = user_places();
  Json doc = Json::object();
  doc["format"] = 2;
  doc["kind"] = "root";
  doc["what"] = what;
  doc["at"] = utc::now_iso8601();
  return save_record(own, own.last_apply_file(), doc);
}

} // namespace gpudoctor::fix
