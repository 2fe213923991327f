#include "system/process_tree.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <map>
#include <set>
#include <thread>
#include <unistd.h>
#include <utility>

namespace gpudoctor::proc {

namespace {

using Clock = std::chrono::steady_clock;

std::map<int, std::vector<int>> children_of(const std::vector<ProcessInfo>& table) {
  std::map<int, std::vector<int>> kids;
  for (const auto& p : table)
    kids[p.ppid].push_back(p.pid);
  return kids;
}

// Each process of `table` by its pid.
std::map<int, const ProcessInfo*> by_pid(const std::vector<ProcessInfo>& table) {
  std::map<int, const ProcessInfo*> index;
  for (const auto& p : table)
    index[p.pid] = &p;
  return index;
}

std::string self_prefix(int self) {
  return std::to_string(self) + ".";
}

std::optional<std::string> live_tag(int pid) {
  auto environ = environment_of(pid);
  if (!environ || environ->empty()) return std::nullopt;
  return environment_entry(*environ, k_run_tag_name).value_or("");
}

KillSteps live_steps(std::function<Found()> find) {
  return {std::move(find), [](int pid) { ::kill(pid, SIGKILL); },
          [](std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); }, [] { return Clock::now(); }};
}

} // namespace

std::string new_run_tag() {
  static std::atomic<unsigned> counter{0};
  return self_prefix(static_cast<int>(::getpid())) + std::to_string(++counter);
}

Ownership owners(const std::vector<ProcessInfo>& table, int self, const std::map<int, std::string>& leaders,
                 const std::function<std::optional<std::string>(int)>& tag_of) {
  auto kids = children_of(table);
  auto process = by_pid(table);
  std::string mine = self_prefix(self);
  Ownership owner;
  // Top down from gpudoctor: a process's own tag wins, else it belongs where its parent does.
  std::vector<std::pair<int, std::string>> todo;
  for (int child : kids[self])
    todo.emplace_back(child, "");
  std::set<int> seen{self};
  while (!todo.empty()) {
    auto [pid, inherited] = todo.back();
    todo.pop_back();
    if (!seen.insert(pid).second) continue;
    std::string run = inherited;
    if (auto it = leaders.find(pid); it != leaders.end()) {
      run = it->second;
    } else if (const ProcessInfo* p = process[pid]; p && p->state != 'D' && !p->gone()) {
      // Not read from a process in uninterruptible sleep: reading its environment can block on its memory
      // lock (a wedged driver's page fault), which would hang gpudoctor too. It belongs where its parent
      // does.
      auto tag = tag_of(pid);
      if (tag && tag->starts_with(mine))
        run = *tag;
      else if (!tag && run.empty())
        owner.unsure.push_back(pid);
    }
    owner.run_of[pid] = run;
    for (int child : kids[pid])
      todo.emplace_back(child, run);
  }
  return owner;
}

std::vector<int> run_members(const std::vector<ProcessInfo>& table, const Ownership& owner_of, int leader,
                             const std::string& tag) {
  std::vector<int> out;
  for (const auto& p : table) {
    if (p.gone()) continue;
    auto it = owner_of.run_of.find(p.pid);
    if (it == owner_of.run_of.end()) continue; // not below gpudoctor: never touched
    if (it->second == tag || (it->second.empty() && p.pgid == leader)) out.push_back(p.pid);
  }
  return out;
}

std::vector<int> below(const std::vector<ProcessInfo>& table, int root) {
  auto kids = children_of(table);
  auto process = by_pid(table);
  std::vector<int> out, todo = kids[root];
  std::set<int> seen{root};
  while (!todo.empty()) {
    int pid = todo.back();
    todo.pop_back();
    if (!seen.insert(pid).second) continue;
    if (!process[pid]->gone()) out.push_back(pid);
    for (int child : kids[pid])
      todo.push_back(child);
  }
  return out;
}

std::vector<int> kill_until_gone(const KillSteps& steps, Clock::time_point deadline) {
  auto patience_ends = std::min(deadline, steps.now() + k_unsure_patience);
  while (true) {
    auto found = steps.find();
    if (found.alive.empty() && (!found.unsure || steps.now() >= patience_ends)) return {};
    for (int pid : found.alive)
      steps.kill(pid);
    if (steps.now() >= deadline) return found.alive;
    steps.pause(std::chrono::milliseconds(10));
  }
}

std::vector<int> kill_run(int leader, const std::string& tag, std::chrono::milliseconds bound) {
  int self = static_cast<int>(::getpid());
  auto find = [&] {
    auto table = all_processes();
    auto owner_of = owners(table, self, {{leader, tag}}, live_tag);
    auto process = by_pid(table);
    bool unsure = std::any_of(owner_of.unsure.begin(), owner_of.unsure.end(), [&](int pid) {
      return process[pid]->pgid != leader; // one in the run's group is a member anyway
    });
    return Found{run_members(table, owner_of, leader, tag), unsure};
  };
  return kill_until_gone(live_steps(find), Clock::now() + bound);
}

std::vector<int> kill_all_runs(const std::vector<int>& leaders, const std::vector<int>& roots,
                               std::chrono::milliseconds bound) {
  int self = static_cast<int>(::getpid());
  auto find = [&] {
    auto table = all_processes();
    std::set<int> out(leaders.begin(), leaders.end());
    std::set<int> groups(leaders.begin(), leaders.end());
    auto owner_of = owners(table, self, {}, live_tag);
    for (const auto& p : table)
      if (auto it = owner_of.run_of.find(p.pid);
          it != owner_of.run_of.end() && (!it->second.empty() || groups.count(p.pgid)))
        out.insert(p.pid);
    for (int root : roots) {
      if (auto p = process_info(root); p && !p->gone()) out.insert(root);
      for (int pid : below(table, root))
        out.insert(pid);
    }
    auto process = by_pid(table);
    std::erase_if(out, [&](int pid) {
      auto it = process.find(pid);
      return pid == self || it == process.end() || it->second->gone();
    });
    return Found{std::vector<int>(out.begin(), out.end()), !owner_of.unsure.empty()};
  };
  return kill_until_gone(live_steps(find), Clock::now() + bound);
}

std::vector<int> kill_everything_below_self(std::chrono::milliseconds bound) {
  int self = static_cast<int>(::getpid());
  bool first = true;
  auto find = [&] {
    auto table = all_processes();
    auto alive = below(table, self);
    // One in uninterruptible sleep (a wedged driver) gets SIGKILL once and is left: it dies when it leaves
    // the kernel, and waiting the whole bound for it at every exit would slow each run on such a machine.
    if (!std::exchange(first, false)) {
      auto process = by_pid(table);
      std::erase_if(alive, [&](int pid) { return process[pid]->state == 'D'; });
    }
    return Found{std::move(alive), false};
  };
  return kill_until_gone(live_steps(find), Clock::now() + bound);
}

} // namespace gpudoctor::proc
