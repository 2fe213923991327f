// The apply state (docs/fixes.md, "Apply state"): records written and read back (0.1.0's too), ids that
// cannot step out of their folders, the one-migration-per-machine decisions and their messages, the net
// effect of a migration's runs, and root's reading of its own records (the trust rule, no link followed).
#include "fix/apply.hpp"
#include "fix/apply_state.hpp"
#include "fix/journal.hpp"
#include "fix/record_files.hpp"
#include "unit/recording_frontend.hpp"
#include "unit/testutil.hpp"

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::fix;
namespace fs = std::filesystem;

namespace {

ApplyRecord migration(const std::string& target, const std::string& status) {
  ApplyRecord r;
  r.kind = "migration";
  r.plan = "migrate-to-" + target;
  r.target = target;
  r.script_id = "migrate-to-" + target + "-0123abcd";
  r.runs = {"20261201T090000Z-41", "20261201T100000Z-42"};
  r.steps = {"purge-rocm.packages", "install-nvidia.driver", "migrate.check"};
  r.done = {"purge-rocm.packages"};
  r.status = status;
  if (status == "failed") r.failed_step = "install-nvidia.driver";
  return r;
}

Json parsed(const std::string& text) {
  auto j = parse_json(text);
  REQUIRE_MESSAGE(j.has_value(), text);
  return *j;
}

} // namespace

TEST_CASE("fix state: ids name one file in one folder, nothing else") {
  for (const char* good : {"migrate-to-nvidia-af1c7d1e", "20261201T090000Z-4242", "20261201T090000Z-4242.2",
                           "purge-rocm.packages", "a_b"})
    CHECK_MESSAGE(valid_id(good), good);
  for (const char* bad :
       {"", ".hidden", "..", "../etc/cron.d/x", "a/b", "a b", "x\n", "x\t", "$(reboot)", "a;b"})
    CHECK_MESSAGE(!valid_id(bad), bad);
  CHECK(valid_id(std::string(128, 'a')));
  CHECK(!valid_id(std::string(129, 'a')));
}

TEST_CASE("fix state: a record reads back as it was written; a pointer has only its ids") {
  ApplyRecord m = migration("nvidia", "failed");
  m.version = "0.2.0";
  auto back = record_from_json(record_to_json(m));
  REQUIRE_MESSAGE(back.has_value(), back.error());
  CHECK(back->kind == "migration");
  CHECK(back->target == "nvidia");
  CHECK(back->script_id == m.script_id);
  CHECK(back->runs == m.runs);
  CHECK(back->steps == m.steps);
  CHECK(back->done == m.done);
  CHECK(back->status == "failed");
  CHECK(back->failed_step == "install-nvidia.driver");
  CHECK(!back->from_0_1);
  CHECK(back->unfinished());
  auto ptr = record_from_json(pointer_to_json(m));
  REQUIRE(ptr.has_value());
  CHECK(ptr->pointer);
  CHECK(ptr->script_id == m.script_id);
  CHECK(ptr->runs.empty());
  // No path in either: every path is derived from the ids.
  for (const Json& j : {record_to_json(m), pointer_to_json(m)})
    CHECK(j.dump().find('/') == std::string::npos);
}

TEST_CASE("fix state: 0.1.0's records are read, their paths ignored") {
  // As 0.1.0 wrote last-apply.json: the paths of its script and journal, which root must not take from it.
  auto r =
      record_from_json(parsed(R"({"kind": "fix", "plan": "purge-rocm", "script_id": "purge-rocm-1a2b3c4d",
      "script": "/home/alice/.local/state/gpudoctor/scripts/x.sh", "root": "", "journal": "/home/alice/evil.journal",
      "family": "debian", "needs_root": true, "run": "20261201T090000Z-4242", "status": "done",
      "steps": ["purge-rocm.packages"], "done": ["purge-rocm.packages"]})"));
  REQUIRE_MESSAGE(r.has_value(), r.error());
  CHECK(r->from_0_1);
  CHECK(r->kind == "fix");
  CHECK(r->runs == std::vector<std::string>{"20261201T090000Z-4242"});
  CHECK(r->needs_root);
  CHECK(record_to_json(*r).dump().find("evil") == std::string::npos);
  // 0.1.0's migrate.json: kind "migrate", the target only in the plan id.
  auto m = record_from_json(
      parsed(R"({"kind": "migrate", "plan": "migrate-to-amd", "script_id": "migrate-to-amd-00ff00ff",
      "run": "20261201T090000Z-1", "status": "reboot", "steps": ["a", "b"], "done": ["a"], "family": "debian"})"));
  REQUIRE_MESSAGE(m.has_value(), m.error());
  CHECK(m->kind == "migration");
  CHECK(m->target == "amd");
  CHECK(m->unfinished());
}

TEST_CASE("fix state: a record whose ids could name another path is refused") {
  const char* hostile[] = {
      R"({"kind": "fix", "script_id": "../../../etc/cron.d/x", "run": "r1", "steps": [], "done": []})",
      R"({"kind": "fix", "script_id": "x", "run": "../r1", "steps": [], "done": []})",
      R"({"format": 2, "kind": "fix", "script_id": "x", "runs": ["r1", "/tmp/r2"], "steps": [], "done": []})",
      R"({"format": 2, "kind": "fix", "script_id": "x", "runs": [1], "steps": [], "done": []})",
      R"({"format": 2, "kind": "fix", "script_id": "x", "runs": ["r1"], "steps": ["a;b"], "done": []})",
      R"({"format": 2, "kind": "other", "script_id": "x", "runs": ["r1"]})",
      R"({"format": 3, "kind": "fix", "script_id": "x", "runs": ["r1"]})",
      R"({"format": 2, "kind": "migration", "target": "intel", "script_id": "x", "runs": ["r1"]})",
      R"({"format": 2, "kind": "fix", "script_id": "x", "runs": ["r1"], "status": "pwned"})",
      R"(["not", "an", "object"])",
  };
  for (const char* text : hostile)
    CHECK_MESSAGE(!record_from_json(parsed(text)).has_value(), text);
}

TEST_CASE("fix state: one migration per machine: the same target resumes, another is refused") {
  using Action = MigrationGate::Action;
  CHECK(migration_gate(std::nullopt, "nvidia", "").action == Action::start);
  for (const char* closed : {"undone", "finished", "rolled-back", "stopped"})
    CHECK(migration_gate(migration("amd", closed), "nvidia", "").action == Action::start);
  for (const char* open : {"running", "reboot", "failed"}) {
    CHECK(migration_gate(migration("nvidia", open), "nvidia", "").action == Action::resume);
    auto other = migration_gate(migration("nvidia", open), "amd", "");
    CHECK(other.action == Action::refuse);
    // Every refusal ends with the exact recovery commands.
    CHECK(other.message.ends_with("first:"));
    CHECK(other.commands == std::vector<std::string>{"gpudoctor migrate --resume", "gpudoctor undo"});
    CHECK(other.message.find("a migration to nvidia is unfinished") != std::string::npos);
  }
  CHECK(migration("nvidia", "failed").progress() == "step install-nvidia.driver failed, 1 of 3 steps done");
  CHECK(migration_gate(migration("nvidia", "done"), "nvidia", "").action == Action::complete);
  auto done_other = migration_gate(migration("nvidia", "done"), "amd", "/tmp/r");
  CHECK(done_other.action == Action::refuse);
  CHECK(done_other.commands ==
        std::vector<std::string>{"gpudoctor migrate --finish --root /tmp/r", "gpudoctor undo --root /tmp/r"});
}

TEST_CASE("fix state: a fix that acts on packages waits for an unfinished migration") {
  auto open = migration("nvidia", "failed");
  auto why = fix_refusal(open, "purge-rocm", true, "");
  REQUIRE(why);
  CHECK(why->exit == Exit::usage);
  CHECK(why->message.find("fix purge-rocm installs or removes packages") != std::string::npos);
  CHECK(why->commands == std::vector<std::string>{"gpudoctor migrate --resume", "gpudoctor undo"});
  CHECK_FALSE(fix_refusal(open, "env-cleanup", false, ""));
  CHECK_FALSE(fix_refusal(migration("nvidia", "done"), "purge-rocm", true, ""));
  CHECK_FALSE(fix_refusal(std::nullopt, "purge-rocm", true, ""));
}

TEST_CASE("fix state: a new apply waits for another fix's unfinished apply (it would replace the record undo "
          "reads)") {
  ApplyRecord fix = migration("nvidia", "failed");
  fix.kind = "fix";
  fix.plan = "install-rocm";
  fix.target.clear();
  fix.script_id = "install-rocm-0123abcd";
  for (const char* open : {"running", "reboot", "failed"}) {
    fix.status = open;
    auto why = unfinished_fix_refusal(fix, "fix install-nvidia", "/tmp/r");
    REQUIRE(why);
    CHECK(why->exit == Exit::usage);
    CHECK(
        why->message.starts_with("fix install-rocm is unfinished on this machine (install-rocm-0123abcd: "));
    CHECK(why->message.find("and fix install-nvidia would replace its record") != std::string::npos);
    CHECK(why->commands == std::vector<std::string>{"gpudoctor fix install-rocm --apply --root /tmp/r",
                                                    "gpudoctor undo --root /tmp/r"});
    CHECK(unfinished_fix_refusal(fix, "migrate --to amd", "")->message.find("and migrate --to amd would") !=
          std::string::npos);
  }
  fix.status = "failed";
  fix.from_0_1 = true;
  CHECK(unfinished_fix_refusal(fix, "fix install-nvidia", "")->commands ==
        std::vector<std::string>{"gpudoctor undo"});
  fix.from_0_1 = false;
  for (const char* closed : {"done", "undone", "rolled-back", "stopped"}) {
    fix.status = closed;
    CHECK_FALSE(unfinished_fix_refusal(fix, "fix install-nvidia", ""));
  }
  // A migration's pointer, or its record: the migration's gate decides.
  CHECK_FALSE(unfinished_fix_refusal(migration("amd", "failed"), "fix install-nvidia", ""));
  ApplyRecord pointer = migration("amd", "failed");
  pointer.pointer = true;
  CHECK_FALSE(unfinished_fix_refusal(pointer, "fix install-nvidia", ""));
  CHECK_FALSE(unfinished_fix_refusal(std::nullopt, "fix install-nvidia", ""));
}

TEST_CASE("fix state: run ids are new ids") {
  std::string a = new_run_id({});
  CHECK(valid_id(a));
  std::string b = new_run_id({a});
  CHECK(b != a);
  CHECK(valid_id(b));
}

TEST_CASE("fix journal: a migration's runs together are their net effect, as undoing them newest first") {
  // Run 1 purged the old stack and failed; the rerun (run 2) installed the new one. The cache is run 1's.
  std::string text = "t\tr1\tp\tbackup\t/etc/environment\t/b/s/r1/etc/environment\n"
                     "t\tr1\tp\tcreated\t/etc/new.conf\n"
                     "t\tr1\tp\tpurge-package\trocm-core\t6.2.4\tauto\n"
                     "t\tr1\tp\tcached-package\trocm-core\t6.2.4\t/c/s/outgoing/rocm-core.deb\n"
                     "t\tr1\tp\tinstalled-package\tcuda-keyring\t1.1-1\n"
                     "t\tr1\tp\tstep-failed\t1\n"
                     "t\tr2\tq\tbackup\t/etc/environment\t/b/s/r2/etc/environment\n"
                     "t\tr2\tq\tbackup\t/etc/new.conf\t/b/s/r2/etc/new.conf\n"
                     "t\tr2\tq\tinstalled-package\tnvidia-open-580\t580.95.05-1\n"
                     "t\tr2\tq\tpurge-package\tcuda-keyring\t1.1-1\n"
                     "t\tr9\tz\tpurge-package\tother\t1\n";
  auto journal = parse_journal(text);
  RunEffects fx = run_effects(journal, std::vector<std::string>{"r1", "r2"});
  REQUIRE(fx.found);
  REQUIRE(fx.backups.size() == 1); // the state before run 1; new.conf was created by run 1: it goes
  CHECK(fx.backups[0].copy == "/b/s/r1/etc/environment");
  CHECK(fx.backups[0].run == "r1");
  CHECK(fx.created == std::vector<std::string>{"/etc/new.conf"});
  REQUIRE(fx.purged.size() == 1); // rocm-core comes back; cuda-keyring was not there before run 1
  CHECK(fx.purged[0] == std::pair<std::string, std::string>{"rocm-core", "6.2.4"});
  CHECK(fx.auto_marked == std::vector<std::string>{"rocm-core"});
  CHECK(fx.cached.at("rocm-core") == "/c/s/outgoing/rocm-core.deb");
  CHECK(fx.installed == std::vector<std::string>{"cuda-keyring", "nvidia-open-580"});
  CHECK(!fx.undone);
  // Only run 2: what it did alone.
  RunEffects r2 = run_effects(journal, "r2");
  CHECK(r2.purged.size() == 1);
  CHECK(r2.backups.size() == 2);
  auto undone = parse_journal(text + "t\tr1\t-\tundone\n");
  CHECK(!run_effects(undone, std::vector<std::string>{"r1", "r2"}).undone);
  CHECK(run_effects(parse_journal(text + "t\tr1\t-\tundone\nt\tr2\t-\tundone\n"),
                    std::vector<std::string>{"r1", "r2"})
            .undone);
  CHECK(journal_runs(journal) == std::vector<std::string>{"r1", "r2", "r9"});
}

TEST_CASE("fix journal: a rollback names the earlier runs whose prepare steps it put back") {
  // Run 1 added the repositories and was killed; run 2 resumed at the download, failed there, and its
  // rollback put back run 1's repositories too (lib.bash's gd_rollback_run names run 1).
  std::string text = "t\tr1\tinstall.repository\tstep-done\n"
                     "t\tr2\tprepare.download\tstep-failed\t1\n"
                     "t\tr2\tprepare.download\trolled-back\tr1\n";
  RunEffects r2 = run_effects(parse_journal(text), "r2");
  CHECK(r2.rolled_back_runs == std::vector<std::string>{"r2", "r1"});
  CHECK(run_effects(parse_journal(text), "r1").rolled_back_runs.empty());
}

TEST_CASE("fix records: the folders derive every path from the ids") {
  RecordPlaces p = root_places("/tmp/r/");
  CHECK(p.root == "/tmp/r");
  CHECK(p.journal("x-1") == "/var/log/gpudoctor/x-1.journal");
  CHECK(p.script("x-1") == "/var/lib/gpudoctor/scripts/x-1.sh");
  CHECK(p.run_backups("x-1", "r1") == "/var/backups/gpudoctor/x-1/r1");
  CHECK(p.script_cache("x-1") == "/var/cache/gpudoctor/x-1");
  CHECK(p.migration_file() == "/var/lib/gpudoctor/migration.json");
  CHECK(p.on_host(p.last_apply_file()) == "/tmp/r/var/lib/gpudoctor/last-apply.json");
  CHECK(root_places("/").root.empty());
}

// Root's reading of records needs files of another owner: as root only (the unit tests run as root in CI).
TEST_CASE("fix records: root reads only its own records, never through a link") {
  if (::geteuid() != 0) return;
  test::TempDir tmp("gpudoctor-records");
  std::string root = tmp.path().string();
  RecordPlaces p = root_places(root);
  REQUIRE(prepare_record_folders(p).has_value());
  for (const auto* f : {&p.state, &p.scripts, &p.log, &p.backups, &p.cache}) {
    struct stat st {};
    REQUIRE(::stat(p.on_host(*f).c_str(), &st) == 0);
    CHECK_MESSAGE((st.st_mode & 0777) == (f == &p.cache ? 0755u : 0700u), *f);
  }
  std::string file = p.last_apply_file();
  test::write_text(p.on_host(file), R"({"format": 2, "kind": "fix", "script_id": "x", "runs": ["r1"]})");
  auto ok = load_record(p, file);
  REQUIRE_MESSAGE(ok.has_value(), ok.error());
  REQUIRE(ok->has_value());
  CHECK((*ok)->script_id == "x");
  CHECK(!load_record(p, p.migration_file()).value().has_value()); // none: not an error

  REQUIRE(::chown(p.on_host(file).c_str(), 65534, 65534) == 0);
  auto theirs = read_record(p, file);
  REQUIRE(!theirs.has_value());
  CHECK(theirs.error().find("owned by") != std::string::npos);
  REQUIRE(::chown(p.on_host(file).c_str(), 0, 0) == 0);

  fs::rename(p.on_host(file), p.on_host(p.state + "/real.json"));
  fs::create_symlink("real.json", p.on_host(file));
  CHECK(!read_record(p, file).has_value()); // a link, even to root's own file

  REQUIRE(::chmod(p.on_host(p.state).c_str(), 0777) == 0);
  auto open_folder = read_record(p, p.state + "/real.json");
  REQUIRE(!open_folder.has_value());
  CHECK(open_folder.error().find("writable by others") != std::string::npos);
  auto refused = prepare_record_folders(p);
  REQUIRE(!refused.has_value());
  CHECK(refused.error().message.find("/var/lib/gpudoctor is writable by others") != std::string::npos);
  REQUIRE(refused.error().commands.size() == 1);
  CHECK(refused.error().commands.front().ends_with("chmod 0700 " + p.on_host(p.state)));
  REQUIRE(::chmod(p.on_host(p.state).c_str(), 0700) == 0);
}

TEST_CASE("fix records: a kept file (a backup, a cached package) lies in its run's folder") {
  if (::geteuid() != 0) return;
  test::TempDir tmp("gpudoctor-kept");
  RecordPlaces p = root_places(tmp.path().string());
  REQUIRE(prepare_record_folders(p).has_value());
  std::string folder = p.run_backups("s", "r1");
  std::string copy = folder + "/home/sam/.bashrc";
  test::write_text(p.on_host(copy), "before\n");
  CHECK(check_kept_file(p, folder, copy).has_value());
  // A backup keeps its file's owner: fine inside root's 0700 backup folder.
  REQUIRE(::chown(p.on_host(copy).c_str(), 65534, 65534) == 0);
  CHECK(check_kept_file(p, folder, copy).has_value());
  for (const std::string& outside : {std::string("/home/alice/evil"), folder + "/../r2/x", folder + "//x",
                                     p.run_backups("s", "r2") + "/x", folder})
    CHECK_MESSAGE(!check_kept_file(p, folder, outside).has_value(), outside);
  // A link on the way, a folder of another user's below the run's folder.
  fs::create_directories(p.on_host(folder + "/etc"));
  fs::create_symlink("/etc", p.on_host(folder + "/linked"));
  test::write_text(p.on_host(folder + "/etc/x"), "x");
  CHECK(!check_kept_file(p, folder, folder + "/linked/passwd").has_value());
  REQUIRE(::chown(p.on_host(folder + "/etc").c_str(), 65534, 65534) == 0);
  CHECK(!check_kept_file(p, folder, folder + "/etc/x").has_value());
  // Another user's file where others can reach it: refused.
  REQUIRE(::chmod(p.on_host(p.backups).c_str(), 0755) == 0);
  CHECK(!check_kept_file(p, folder, copy).has_value());
}

TEST_CASE(
    "fix undo: root refuses a state file it does not own, and acts on 0.1.0's own records by their ids") {
  if (::geteuid() != 0) return;
  test::TempDir tmp("gpudoctor-undo");
  std::string root = tmp.path().string();
  ::chmod(root.c_str(), 0755);
  RecordPlaces p = root_places(root);
  REQUIRE(prepare_record_folders(p).has_value());
  const std::string id = "purge-rocm-1a2b3c4d", run = "20261201T090000Z-4242";
  std::string backups = p.run_backups(id, run);
  test::write_text(p.on_host("/etc/environment"), "edited by the run\n");
  test::write_text(p.on_host(backups + "/etc/environment"), "before the run\n");
  // A hostile entry: restore a user's file into /etc/cron.d.
  test::write_text(p.on_host("/home/alice/evil"), "* * * * * root touch /pwned\n");
  test::write_text(p.on_host(p.journal(id)),
                   "t\t" + run + "\tp\tbackup\t/etc/environment\t" + backups + "/etc/environment\n");
  test::write_text(p.on_host("/home/alice/evil.journal"),
                   "t\t" + run + "\tp\tbackup\t/etc/cron.d/evil\t/home/alice/evil\n");
  std::string state0 = R"({"kind": "fix", "plan": "purge-rocm", "script_id": ")" + id +
                       R"(", "journal": "/home/alice/evil.journal", "script": "/home/alice/x.sh",
      "family": "debian", "needs_root": true, "run": ")" +
                       run + R"(", "status": "done", "steps": ["p"], "done": ["p"]})";

  // The user's copy of it: refused, nothing touched.
  std::string users = root + "/home/alice/.local/state/gpudoctor/last-apply.json";
  test::write_text(users, state0);
  REQUIRE(::chown(users.c_str(), 65534, 65534) == 0);
  test::RecordingFrontend refused;
  CHECK(exit_code(undo_apply({root, true, users, "", ""}, refused)) == 2);
  CHECK(refused.all<event::FileRestored>().empty());
  CHECK(test::slurp(p.on_host("/etc/environment")) == "edited by the run\n");
  CHECK(!fs::exists(p.on_host("/etc/cron.d/evil")));

  // Root's own 0.1.0 record of it: undone from root's journal (the ids), not from the journal it names.
  test::write_text(p.on_host(p.last_apply_file()), state0);
  // Asked and answered no (or with no one to ask): nothing is touched.
  for (Answer a : {Answer::no, Answer::cannot_ask}) {
    test::RecordingFrontend declines;
    declines.answer = a;
    auto no = undo_apply({root, false, "", "", ""}, declines);
    REQUIRE(!no.has_value());
    CHECK(no.error().message ==
          (a == Answer::no ? "nothing was undone" : "nothing was undone (not a terminal: pass --yes)"));
    REQUIRE(declines.questions.size() == 1);
    CHECK(std::get<question::Undo>(declines.questions[0]).restores == 1);
    CHECK(test::slurp(p.on_host("/etc/environment")) == "edited by the run\n");
  }
  test::RecordingFrontend ui;
  CHECK(exit_code(undo_apply({root, true, "", "", ""}, ui)) == 0);
  CHECK(ui.questions.empty()); // --yes
  auto undoing = ui.all<event::Undoing>();
  REQUIRE(undoing.size() == 1);
  CHECK(undoing[0].runs == std::vector<std::string>{run});
  auto restored = ui.all<event::FileRestored>();
  REQUIRE(restored.size() == 1);
  CHECK(restored[0].file == "/etc/environment");
  CHECK(restored[0].ok);
  CHECK(ui.all<event::Undone>().size() == 1);
  CHECK(std::holds_alternative<event::Undone>(ui.events.back()));
  CHECK(test::slurp(p.on_host("/etc/environment")) == "before the run\n");
  CHECK(!fs::exists(p.on_host("/etc/cron.d/evil")));
  CHECK(test::slurp(p.on_host(p.journal(id))).find("\tundone\n") != std::string::npos);
  auto after = load_record(p, p.last_apply_file());
  REQUIRE(after.has_value());
  CHECK((*after)->status == "undone");
  test::RecordingFrontend again;
  CHECK(exit_code(undo_apply({root, true, "", "", ""}, again)) == 0);
  REQUIRE(again.events.size() == 1);
  CHECK(std::holds_alternative<event::UndoneAlready>(again.events[0]));

  // A hostile entry in root's own journal (a copy outside its run's folder) is not acted on.
  const std::string id2 = "fix-2", run2 = "r2";
  test::write_text(p.on_host(p.journal(id2)), "t\tr2\tp\tbackup\t/etc/cron.d/evil\t/home/alice/evil\n");
  test::RecordingFrontend hostile;
  CHECK(exit_code(undo_apply({root, true, "", id2, run2}, hostile)) == 1);
  auto kept = hostile.all<event::KeptFileRefused>();
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].kind == event::KeptFileRefused::Kind::backup);
  CHECK(kept[0].subject == "/etc/cron.d/evil");
  CHECK(kept[0].copy == "/home/alice/evil");
  CHECK(!fs::exists(p.on_host("/etc/cron.d/evil")));
}
