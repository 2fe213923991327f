// Whole machines. Every snapshot under tests/machines/<name>/snapshot gives exactly the findings (info, warn
// and error results) of tests/machines/<name>/expected.json and the messages it names, from its folder and
// from a .tar.gz of it, run after run. What passes and what is skipped is not repeated in each fixture: the
// tally (tests/machines/tally.json) counts, per check, the results of each status over all fixtures, so a
// check that silently turns into "skip" everywhere is still caught, and adding a check touches the tally and
// the fixtures it fires on only. A few sentinel machines (those with a report.json) keep the whole JSON
// report. One case a machine, "machine: <name>" (the list is generated from the folders by
// tests/CMakeLists.txt), so one runs alone: unittest -tc='machine: nvidia-nouveau'.
// GPUDOCTOR_UPDATE_GOLDEN=1 rewrites expected.json, report.json and tally.json from what gpudoctor says now
// (review the diff!).
#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "bundle/obfuscate.hpp"
#include "bundle/redact.hpp"
#include "report/report.hpp"
#include "unit/fix_fixtures.hpp"
#include "unit/testutil.hpp"
#include "util/archive.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

Json conclusions(const std::vector<Result>& results) {
  Json out = Json::array();
  for (const auto& r : results)
    out.push_back({{"id", r.id}, {"subject", r.subject}, {"status", status_name(r.status)}});
  return out;
}

bool is_finding(const Result& r) {
  return r.status != Status::pass && r.status != Status::skip;
}

Json findings(const std::vector<Result>& results) {
  std::vector<Result> kept;
  std::copy_if(results.begin(), results.end(), std::back_inserter(kept), is_finding);
  return conclusions(kept);
}

bool updating_goldens() {
  return std::getenv("GPUDOCTOR_UPDATE_GOLDEN") != nullptr;
}

// The JSON report as `check --from` writes it, without what differs between checkouts and releases.
Json sentinel_report(const Report& report) {
  Json doc = report_to_json(report);
  doc["tool"]["version"] = "(version)";
  doc["source"]["path"] = "(snapshot)";
  return doc;
}

// The machine fixtures on disk: the folders under tests/machines that hold a snapshot.
std::vector<std::string> machines_on_disk() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(GPUDOCTOR_TEST_MACHINES))
    if (fs::exists(entry.path() / "snapshot" / "manifest.json"))
      out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The machine fixtures that have a case: the generated list.
const std::vector<std::string> k_machine_cases = {
#define GPUDOCTOR_MACHINE(name) name,
#include "machine_cases.inc"
#undef GPUDOCTOR_MACHINE
};

// tests/machines/<name>: its snapshot gives the findings of its expected.json (and the messages it names),
// the whole report of its report.json where it has one, packed as .tar.gz too, and a second run changes
// nothing.
void check_machine(const std::string& name) {
  const fs::path dir = machine_dir(name);
  Report report = judged_snapshot(dir / "snapshot");
  const auto& results = report.results;
  Json got = findings(results);
  fs::path expected_file = dir / "expected.json";
  fs::path report_file = dir / "report.json";
  if (updating_goldens()) {
    Json doc = {{"machine", name}, {"findings", got}};
    // The message assertions are written by hand: keep them across updates.
    if (fs::exists(expected_file))
      if (auto old = parse_json(slurp(expected_file)); old && old->is_object())
        if (auto it = old->find("messages"); it != old->end()) doc["messages"] = *it;
    std::ofstream(expected_file) << dump_json(doc) << "\n";
    if (fs::exists(report_file)) std::ofstream(report_file) << dump_json(sentinel_report(report)) << "\n";
    return;
  }
  REQUIRE_MESSAGE(fs::exists(expected_file),
                  "no expected.json: run with GPUDOCTOR_UPDATE_GOLDEN=1 and review it");
  auto expected = parse_json(slurp(expected_file));
  REQUIRE(expected.has_value());
  REQUIRE_MESSAGE(expected->contains("findings"), "expected.json has no findings: rewrite it");
  Json want = (*expected)["findings"];
  CHECK_MESSAGE(got == want, "got:\n" << dump_json(got));
  // No check failed inside gpudoctor (an exception, a fix its entry lacks), every fix offered has a
  // recipe, and every warn and error ends in something to do: a fix or an action, of one line.
  for (const auto& r : results) {
    CAPTURE(r.id);
    CAPTURE(r.subject);
    CHECK_FALSE(r.message.find("failed inside gpudoctor") != std::string::npos);
    for (const auto& fix : r.fixes)
      CHECK(recipes().find(fix) != nullptr);
    if (r.status == Status::warn || r.status == Status::error)
      CHECK_MESSAGE((!r.fixes.empty() || r.action.has_value()),
                    "a " << status_name(r.status) << " with neither a fix nor an action: " << r.message);
    if (r.action) CHECK(escape::one_line(r.action->text) == r.action->text);
    // A check tells its results about one subject apart by their keys itself (the runner's "#2" is for
    // a defect): series, JUnit cases and a diff's rows follow a result by id, subject and key.
    CHECK_MESSAGE(r.key.find('#') == std::string::npos, "two results of one check alike: " << r.message);
  }

  // Optional assertions on messages: {"id": ..., "subject": ..., "message_contains": ...}.
  if (auto it = expected->find("messages"); it != expected->end())
    for (const auto& m : *it) {
      bool found = false;
      for (const auto& r : results)
        if (r.id == m.value("id", "") && r.subject == m.value("subject", "") &&
            r.message.find(m.value("message_contains", "")) != std::string::npos)
          found = true;
      CHECK_MESSAGE(found, "no result " << m.dump() << " found");
    }
  if (fs::exists(report_file)) {
    auto full = parse_json(slurp(report_file));
    REQUIRE(full.has_value());
    CHECK_MESSAGE(sentinel_report(report) == *full, "the report differs from "
                                                        << report_file.string()
                                                        << " (GPUDOCTOR_UPDATE_GOLDEN=1 rewrites it)");
  }

  // The same snapshot packed as .tar.gz judges the same, and a second run changes nothing.
  Json all = conclusions(results);
  TempDir tmp("gpudoctor-test-machine");
  fs::path packed = tmp / (name + ".tar.gz");
  REQUIRE(pack_tar_gz(dir / "snapshot", packed).has_value());
  CHECK(conclusions(judged_snapshot(packed).results) == all);
  CHECK(conclusions(judged_snapshot(dir / "snapshot").results) == all);
}

// Per check, the number of results of each status over every machine fixture; and the fixes they offer.
struct Tally {
  Json checks = Json::object();
  std::set<std::string> fixes_offered;
};
Tally tally_of_machines(const std::vector<std::string>& machines) {
  std::map<std::string, std::map<std::string, int>> counts;
  Tally out;
  for (const auto& name : machines)
    for (const auto& r : judged_machine(name).results) {
      ++counts[r.id][status_name(r.status)];
      out.fixes_offered.insert(r.fixes.begin(), r.fixes.end());
    }
  for (const auto& [id, by_status] : counts)
    out.checks[id] = by_status;
  return out;
}

} // namespace

#define GPUDOCTOR_MACHINE(name)                                                                              \
  TEST_CASE("machine: " name) {                                                                              \
    check_machine(name);                                                                                     \
  }
#include "machine_cases.inc"
#undef GPUDOCTOR_MACHINE

TEST_CASE("machines: the tally of results per check and status over every fixture is what it was") {
  fs::path file = fs::path(GPUDOCTOR_TEST_MACHINES) / "tally.json";
  Tally tally = tally_of_machines(k_machine_cases);
  CHECK(tally.fixes_offered.size() >= 10); // the fixtures do reach the checks' fixes
  Json doc = {{"machines", k_machine_cases.size()}, {"checks", tally.checks}};
  if (updating_goldens()) {
    std::ofstream(file) << dump_json(doc) << "\n";
    return;
  }
  auto want = parse_json(slurp(file));
  REQUIRE(want.has_value());
  for (const auto& [id, by_status] : doc["checks"].items()) {
    CAPTURE(id);
    CHECK(want->at("checks").value(id, Json::object()) == by_status);
  }
  CHECK_MESSAGE(*want == doc, "tally.json differs (GPUDOCTOR_UPDATE_GOLDEN=1 rewrites it)");
  // The sentinels that keep the whole report.
  int sentinels = 0;
  for (const auto& name : k_machine_cases)
    sentinels += fs::exists(machine_dir(name) / "report.json");
  CHECK(sentinels >= 3);
}

TEST_CASE("machines: every fixture folder has its case, and the list is not empty") {
  // The list is made when CMake globs tests/machines: a folder added since is caught here.
  CHECK(machines_on_disk().size() >= 6);
  CHECK_MESSAGE(k_machine_cases == machines_on_disk(),
                "the generated list of machine cases is not the folders under tests/machines: re-run cmake");
}

TEST_CASE("replay: a .gpudoctor-keep file is left out of listings, so its folder replays as empty") {
  TempDir tmp("gpudoctor-test-keep");
  const fs::path& root = tmp.path();
  fs::create_directories(root / "fs/site/numpy-2.5.2.dist-info");
  fs::create_directories(root / "fs/site/torch");
  std::ofstream(root / "fs/site/numpy-2.5.2.dist-info/.gpudoctor-keep");
  std::ofstream(root / "fs/site/torch/version.py") << "__version__ = '2.11.0'\n";
  std::ofstream(root / "manifest.json")
      << R"({"format": "gpudoctor-snapshot", "version": 1, "origin": "fixture"})";
  auto opened = OpenedSnapshot::open(root);
  REQUIRE_MESSAGE(opened.has_value(), (opened ? std::string() : opened.error()));
  SystemView& view = (*opened)->view();
  CHECK(view.list_dir("/site") == std::vector<std::string>{"numpy-2.5.2.dist-info", "torch"});
  CHECK(view.list_dir("/site/numpy-2.5.2.dist-info") == std::vector<std::string>{});
  CHECK(view.list_dir("/site/torch") == std::vector<std::string>{"version.py"});
}

TEST_CASE("bundle --obfuscate: the user and host names are gone from names and contents; the snapshot still "
          "judges the same") {
  CHECK(replace_words("/home/ai/x ai.example maintainers ai", {{"ai", "user-1"}}) ==
        "/home/user-1/x user-1.example maintainers user-1");
  CHECK(replace_words("python-env@_home_ravi_venvs", {{"ravi", "user-1"}}) ==
        "python-env@_home_user-1_venvs");
  CHECK(replace_words("", {{"x", "y"}}).empty());

  fs::path src = machine_dir("probe-amd-2gpu-no-p2p") / "snapshot";
  TempDir tmp("gpudoctor-test-obfuscate");
  const fs::path dir = tmp / "snapshot";
  fs::copy(src, dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  auto before = judged_snapshot(dir).results;
  Obfuscator names(dir, "a key");
  RedactOptions options;
  options.obfuscate = true;
  options.obfuscation_key = "a key";
  RedactionLog log = redact_snapshot(dir, options);
  CHECK(std::find(log.redacted.begin(), log.redacted.end(), "user names") != log.redacted.end());
  CHECK(std::find(log.redacted.begin(), log.redacted.end(), "hostname") != log.redacted.end());

  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string rel = entry.path().lexically_relative(dir).string();
    CHECK_MESSAGE(rel.find("ravi") == std::string::npos, rel);
    if (entry.is_symlink())
      CHECK_MESSAGE(fs::read_symlink(entry.path()).string().find("ravi") == std::string::npos, rel);
    if (fs::is_regular_file(entry.symlink_status())) {
      std::string content = slurp(entry.path());
      CHECK_MESSAGE(content.find("ravi") == std::string::npos, rel);
      CHECK_MESSAGE(content.find("mi210-node07") == std::string::npos, rel);
    }
  }
  CHECK(fs::exists(dir / ("fs/home/" + names.text("ravi"))));
  auto after = judged_snapshot(dir).results;
  REQUIRE(after.size() == before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    CAPTURE(before[i].id);
    CHECK(after[i].id == before[i].id);
    CHECK(after[i].status == before[i].status);
    CHECK(after[i].subject == names.text(before[i].subject));
  }
}

namespace {

// A snapshot whose nvidia-smi answers slowly, noting when each command starts and ends.
class SlowNvidiaSmi : public SystemView {
public:
  explicit SlowNvidiaSmi(SystemView& inner) : m_inner(inner) {}
  std::optional<std::string> read_file(const std::string& p) override { return m_inner.read_file(p); }
  std::optional<std::vector<std::string>> list_dir(const std::string& p) override {
    return m_inner.list_dir(p);
  }
  std::optional<std::string> read_link(const std::string& p) override { return m_inner.read_link(p); }
  std::optional<FileStat> stat(const std::string& p) override { return m_inner.stat(p); }
  std::map<std::string, std::string> environment() override { return m_inner.environment(); }
  Identity identity() override { return m_inner.identity(); }
  Kind kind() const override { return m_inner.kind(); }
  CommandResult run(const CommandSpec& spec) override {
    note(spec.key + " start");
    if (spec.key == "nvidia-smi-xml") std::this_thread::sleep_for(std::chrono::milliseconds(400));
    CommandResult r = m_inner.run(spec);
    note(spec.key + " end");
    return r;
  }
  std::vector<std::string> events() {
    std::lock_guard lock(m_mutex);
    return m_events;
  }

private:
  void note(const std::string& what) {
    std::lock_guard lock(m_mutex);
    m_events.push_back(what);
  }
  SystemView& m_inner;
  std::mutex m_mutex;
  std::vector<std::string> m_events;
};

} // namespace

TEST_CASE("probes: the framework probe starts once the python3 in use is known, not after every collector") {
  // Importing torch takes seconds (2.6-4.4 s on the H200 machines): it must not wait for a slow vendor tool.
  auto opened = OpenedSnapshot::open(machine_dir("nvidia-h200-real") / "snapshot");
  REQUIRE_MESSAGE(opened.has_value(), (opened ? std::string() : opened.error()));
  SlowNvidiaSmi view((*opened)->view());
  auto results = judged_by(view).results;
  auto events = view.events();
  auto at = [&](const std::string& what) {
    return std::find(events.begin(), events.end(), what) - events.begin();
  };
  REQUIRE(at("python-gpu start") < static_cast<long>(events.size()));
  REQUIRE(at("nvidia-smi-xml end") < static_cast<long>(events.size()));
  CHECK(at("python-gpu start") < at("nvidia-smi-xml end"));
  CHECK(at("probe-devices@cuda start") > at("nvidia-smi-xml end")); // the compiled probes wait for the facts
  // And the results are those of the snapshot, as without the delay.
  CHECK(conclusions(results) == conclusions(judged_machine("nvidia-h200-real").results));
}

// Issue 26: a fixture rebuilt from a public report names it. Its README carries the report's URL, or says it
// is shaped from a documented format (and cites that with a URL too). The fixtures below predate the rule:
// each is derived from realdata files named in its README (their sources in tests/data/realdata/README.md),
// from the device machine, or from another fixture; the list only shrinks.
TEST_CASE("machines: every fixture's README names where it comes from") {
  const std::set<std::string> before_the_rule = {"amd-debian12-firmware-missing",
                                                 "amd-mi210-ring-timeout-reset-loop",
                                                 "amd-rx7800xt-rocm7-leftovers",
                                                 "amd-visible-devices-empty",
                                                 "nvidia-a100-remap-pending-text",
                                                 "nvidia-h200-busy-application-xids",
                                                 "nvidia-h200-real",
                                                 "nvidia-h200-user-without-kernel-log",
                                                 "nvidia-h200-xid48-63-94-remap-pending",
                                                 "nvidia-h200-xid79-previous-boot",
                                                 "nvidia-h200-xid79-this-boot",
                                                 "nvidia-hgx-h200-fabric-manager-mismatch",
                                                 "nvidia-hgx-h200-no-fabric-manager",
                                                 "nvidia-nouveau",
                                                 "nvidia-rtx5090-laptop-proprietary",
                                                 "nvidia-smi-timeout",
                                                 "probe-amd-2gpu-no-p2p",
                                                 "probe-amd-rx7900xtx-override",
                                                 "probe-nvidia-driver-mismatch",
                                                 "probe-nvidia-rtx3090-healthy",
                                                 "probe-nvidia-rtx3090-hung",
                                                 "probe-nvidia-rtx3090-slow",
                                                 "ubuntu-noble-rocm-jammy-repo"};
  for (const auto& machine : k_machine_cases) {
    CAPTURE(machine);
    fs::path readme = fs::path(GPUDOCTOR_TEST_MACHINES) / machine / "README.md";
    REQUIRE_MESSAGE(fs::exists(readme), "a fixture without a README");
    if (before_the_rule.contains(machine)) continue;
    CHECK_MESSAGE(slurp(readme).find("https://") != std::string::npos,
                  "the README names no URL: the public report it was built from, or the documented format");
  }
}
