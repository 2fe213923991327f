// The process lifecycle's decisions, each from injected facts (docs/security.md, "Processes"): the bounded
// kill (a process SIGKILL does not end is left after the bound, never waited on forever) and which run a
// process belongs to.
#include "system/process_table.hpp"
#include "system/process_tree.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;
using Clock = std::chrono::steady_clock;

namespace {

// A clock that moves only when the kill pauses: the bound is reached without any real waiting.
struct FakeTime {
  Clock::time_point now = Clock::time_point{} + std::chrono::hours(1);
  proc::KillSteps steps(std::function<std::vector<int>()> find, std::vector<int>& killed) {
    return steps_unsure([find = std::move(find)] { return proc::Found{find(), false}; }, killed);
  }
  proc::KillSteps steps_unsure(std::function<proc::Found()> find, std::vector<int>& killed) {
    return {std::move(find), [&killed](int pid) { killed.push_back(pid); },
            [this](std::chrono::milliseconds ms) { now += ms; }, [this] { return now; }};
  }
};

proc::ProcessInfo process(int pid, int ppid, int pgid, char state = 'S') {
  proc::ProcessInfo p;
  p.pid = pid;
  p.ppid = ppid;
  p.pgid = pgid;
  p.state = state;
  return p;
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("a process that SIGKILL does not end is reported after the bound, not waited on forever") {
    FakeTime time;
    std::vector<int> killed;
    int finds = 0;
    auto deadline = time.now + std::chrono::milliseconds(3000);
    // pid 42 is in uninterruptible sleep: whatever is sent, it is still there.
    auto left =
        proc::kill_until_gone(time.steps([&] { return ++finds, std::vector<int>{42}; }, killed), deadline);
    CHECK(left == std::vector<int>{42});
    CHECK(time.now >= deadline);
    CHECK(time.now < deadline + std::chrono::milliseconds(100)); // it stopped at the bound
    CHECK(finds > 1);                                            // it kept killing until then
    CHECK(killed.size() == static_cast<std::size_t>(finds));
  }

  TEST_CASE("processes that die on SIGKILL are killed and nothing is reported") {
    FakeTime time;
    std::vector<int> killed;
    std::vector<std::vector<int>> rounds = {{7, 8}, {8}, {}};
    std::size_t round = 0;
    auto left = proc::kill_until_gone(
        time.steps([&] { return rounds[std::min(round++, rounds.size() - 1)]; }, killed),
        time.now + std::chrono::seconds(3));
    CHECK(left.empty());
    CHECK(killed == std::vector<int>{7, 8, 8});
  }

  TEST_CASE("a run owns its setsid daemon through the tag, and nothing outside gpudoctor's tree") {
    const int self = 100;
    // 200: the tool (tagged 100.1); 201: its child in its group; 300: a setsid daemon of the tool,
    // re-parented to gpudoctor (its own group, the tag inherited); 301: the daemon's child; 400: another
    // run's tool (100.2); 500: a process outside gpudoctor's tree that happens to be in group 200's number
    // space and carries the tag.
    std::vector<proc::ProcessInfo> table = {
        process(1, 0, 1),        process(self, 1, self),  process(200, self, 200),
        process(201, 200, 200),  process(300, self, 300), process(301, 300, 300),
        process(400, self, 400), process(500, 1, 200),    process(202, 200, 200, 'Z')};
    std::map<int, std::string> tags = {{200, "100.1"}, {201, "100.1"}, {300, "100.1"},
                                       {301, "100.1"}, {400, "100.2"}, {500, "100.1"}};
    auto tag_of = [&](int pid) -> std::optional<std::string> {
      auto it = tags.find(pid);
      return it == tags.end() ? std::nullopt : std::optional(it->second);
    };
    auto owner_of = proc::owners(table, self, {{200, "100.1"}}, tag_of);
    auto members = proc::run_members(table, owner_of, 200, "100.1");
    std::sort(members.begin(), members.end());
    CHECK(members ==
          std::vector<int>{200, 201, 300, 301}); // not 400 (another run), 500 (not below), 202 (zombie)

    // A daemon that cleared its environment: it belongs to the run while it is in the run's group.
    tags.erase(201);
    tags.erase(300);
    tags.erase(301);
    owner_of = proc::owners(table, self, {{200, "100.1"}}, tag_of);
    members = proc::run_members(table, owner_of, 200, "100.1");
    std::sort(members.begin(), members.end());
    CHECK(members == std::vector<int>{200, 201});
    // A tag of another gpudoctor (an outer one) does not count as this one's.
    tags[400] = "99.1";
    owner_of = proc::owners(table, self, {}, tag_of);
    CHECK(owner_of.run_of[400].empty());
  }

  // A process in the middle of an execve shows an empty environment for a moment (its new image's is not in
  // place yet): a setsid daemon caught then would pass for one of no run and outlive the run (CI, 2026-12).
  TEST_CASE(
      "a process whose environment reads empty is unsure, and the kill looks again until its tag shows") {
    const int self = 100;
    // 200: the tool; 300: its setsid daemon, re-parented to gpudoctor, its environment empty on the first
    // read; 301: the daemon's child (inherits nothing from an unsure parent); 400: another run's, tagged.
    std::vector<proc::ProcessInfo> table = {process(self, 1, self), process(200, self, 200),
                                            process(300, self, 300), process(301, 300, 300),
                                            process(400, self, 400)};
    int reads_of_300 = 0;
    auto tag_of = [&](int pid) -> std::optional<std::string> {
      if (pid == 300) return ++reads_of_300 == 1 ? std::nullopt : std::optional<std::string>("100.1");
      if (pid == 301) return std::nullopt;
      return pid == 400 ? "100.2" : "100.1";
    };
    auto first = proc::owners(table, self, {{200, "100.1"}}, tag_of);
    CHECK(first.unsure == std::vector<int>{300, 301});
    CHECK(proc::run_members(table, first, 200, "100.1") == std::vector<int>{200});

    // The kill keeps looking while something is unsure, and kills the daemon once its tag reads.
    FakeTime time;
    std::vector<int> killed;
    bool tool_gone = false;
    auto find = [&] {
      std::vector<proc::ProcessInfo> now = table;
      if (tool_gone) std::erase_if(now, [](const proc::ProcessInfo& p) { return p.pid == 200; });
      auto owner_of = proc::owners(now, self, {{200, "100.1"}}, tag_of);
      auto members = proc::run_members(now, owner_of, 200, "100.1");
      std::erase_if(members, [&](int pid) {
        return std::find(killed.begin(), killed.end(), pid) != killed.end(); // SIGKILL ended it
      });
      tool_gone = true;
      return proc::Found{members, !owner_of.unsure.empty() && reads_of_300 < 2};
    };
    auto left = proc::kill_until_gone(time.steps_unsure(find, killed), time.now + std::chrono::seconds(3));
    CHECK(left.empty());
    std::sort(killed.begin(), killed.end());
    CHECK(killed == std::vector<int>{200, 300, 301});

    // One that stays unsure (started with no environment at all) is given up on after the patience, long
    // before the kill's bound.
    FakeTime idle;
    std::vector<int> none;
    auto start = idle.now;
    left = proc::kill_until_gone(idle.steps_unsure(
                                     [] {
                                       return proc::Found{{}, true};
                                     },
                                     none),
                                 idle.now + std::chrono::seconds(3));
    CHECK(left.empty());
    CHECK(idle.now - start >= proc::k_unsure_patience);
    CHECK(idle.now - start < proc::k_unsure_patience + std::chrono::milliseconds(50));
  }

  TEST_CASE("the environment of a process in uninterruptible sleep is never read (it could hang gpudoctor)") {
    const int self = 100;
    // 200: a tool stuck in a driver (D), its child 201 too; 300: a stuck orphan.
    std::vector<proc::ProcessInfo> table = {process(self, 1, self), process(200, self, 200, 'D'),
                                            process(201, 200, 200, 'D'), process(300, self, 300, 'D')};
    std::vector<int> read;
    auto tag_of = [&](int pid) -> std::optional<std::string> {
      read.push_back(pid);
      return "100.1";
    };
    auto owner_of = proc::owners(table, self, {{200, "100.1"}}, tag_of);
    CHECK(read.empty());
    CHECK(owner_of.run_of[201] == "100.1"); // through its parent
    CHECK(owner_of.run_of[300].empty());    // unknown: left (SIGKILL would not end it anyway)
    CHECK(owner_of.unsure.empty());         // and not looked at again
    auto members = proc::run_members(table, owner_of, 200, "100.1");
    std::sort(members.begin(), members.end());
    CHECK(members == std::vector<int>{200, 201});
  }

  TEST_CASE("procfs stat lines parse, odd command names included") {
    auto p =
        proc::parse_stat("1234 (a) b (c)) D 1 1234 1234 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n");
    REQUIRE(p);
    CHECK(p->pid == 1234);
    CHECK(p->state == 'D');
    CHECK(p->ppid == 1);
    CHECK(p->pgid == 1234);
    CHECK(p->start_time == 98765);
    CHECK_FALSE(proc::parse_stat("garbage"));
    CHECK_FALSE(proc::parse_stat("12 (x) S 1 2"));
  }
}
