// Finding and killing everything one run of a tool started (docs/architecture.md, "Processes").
//
// gpudoctor is the child subreaper (system/reaper), so every process it ever started, however it forked,
// stays below gpudoctor in the parent tree until it is gone: nothing escapes to init. Which run a process
// belongs to is told by a tag in its environment (`GPUDOCTOR_RUN=<gpudoctor pid>.<n>`, set for each tool run
// and inherited by whatever it starts, setsid and double forks included), else by its parent chain, else, for
// a process that cleared its environment, by its process group. The process group alone is not enough: a
// setsid child leaves it, and a daemon re-parented to gpudoctor is no longer below the tool.
#pragma once

#include "system/process_table.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::proc {

inline constexpr const char* k_run_tag_name = "GPUDOCTOR_RUN";

// A new tag for one run of a tool: "<gpudoctor pid>.<n>".
std::string new_run_tag();

// The run each process below `self` belongs to: `leaders` are the main processes of runs (pid, tag);
// `tag_of` reads a process's tag ("" when its environment has none; nullopt when its environment reads
// empty, which a process in the middle of an execve shows for a moment). Only tags of this gpudoctor (prefix
// "<self>.") count.
struct Ownership {
  std::map<int, std::string> run_of; // "" when no run is known
  // Of no known run because their environment read empty: such a process may be mid-execve, with its tag
  // readable a moment later, so whoever kills by owner looks again before giving up on it.
  std::vector<int> unsure;
};
Ownership owners(const std::vector<ProcessInfo>& table, int self, const std::map<int, std::string>& leaders,
                 const std::function<std::optional<std::string>(int)>& tag_of);

// The processes (not yet gone) of the run `tag` whose main process is `leader`: those it owns, and those of
// unknown owner in the leader's process group.
std::vector<int> run_members(const std::vector<ProcessInfo>& table, const Ownership& owner_of, int leader,
                             const std::string& tag);

// Processes (not yet gone) below `root` in `table`, `root` excluded.
std::vector<int> below(const std::vector<ProcessInfo>& table, int root);

// One bounded kill, with its steps injectable (tests): `find` says what is still alive and whether some
// process's owner is unsure (Ownership::unsure), `kill` sends SIGKILL, `pause` lets time pass. Kills until
// `find` finds nothing, and nothing unsure, or `now()` reaches `deadline`; an unsure process is looked at
// again for `k_unsure_patience` at most (one that really has no environment stays unsure). Returns what was
// still alive at the deadline: processes SIGKILL does not end (uninterruptible sleep in a wedged driver),
// which are left, never waited on forever.
struct Found {
  std::vector<int> alive;
  bool unsure = false;
};
struct KillSteps {
  std::function<Found()> find;
  std::function<void(int)> kill;
  std::function<void(std::chrono::milliseconds)> pause;
  std::function<std::chrono::steady_clock::time_point()> now;
};
inline constexpr std::chrono::milliseconds k_unsure_patience{200};
std::vector<int> kill_until_gone(const KillSteps& steps, std::chrono::steady_clock::time_point deadline);

// The live versions, over /proc. Each returns the processes that were still alive at the bound.
std::vector<int> kill_run(int leader, const std::string& tag, std::chrono::milliseconds bound);
// Every process of every tool run of this gpudoctor (tagged, or in the group of one of `leaders`, the runs'
// main processes), and `roots` with everything below them (interrupted --apply steps). What an --apply step
// started and left (a service a package script started on a machine without systemd) is not a run's.
std::vector<int> kill_all_runs(const std::vector<int>& leaders, const std::vector<int>& roots,
                               std::chrono::milliseconds bound);
// Everything below gpudoctor: every run's processes and whatever a run left that no tag or group tied to it
// (a daemon that cleared its environment and left the group). For a gpudoctor that ran no --apply step, when
// it ends (normally or interrupted): nothing it started is meant to outlive it.
std::vector<int> kill_everything_below_self(std::chrono::milliseconds bound);

} // namespace gpudoctor::proc
