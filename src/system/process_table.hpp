// What procfs says about processes, for gpudoctor's own process management (system/process_tree,
// system/temp_files): who is whose parent, which run of a tool a process belongs to, whether a pid still
// names the process that made a folder. Never part of a snapshot.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::proc {

struct ProcessInfo {
  int pid = 0;
  int ppid = 0;
  int pgid = 0;
  char state = '?';                  // R, S, D (uninterruptible), Z (zombie), T, ...
  unsigned long long start_time = 0; // clock ticks after boot: with the pid, names one process for good
  bool gone() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

// Parses the content of /proc/<pid>/stat; nullopt when it is not one.
std::optional<ProcessInfo> parse_stat(std::string_view stat);
// The process `pid` now, or nullopt when there is none.
std::optional<ProcessInfo> process_info(int pid);
// Every process now (each /proc/<pid>/stat that can be read).
std::vector<ProcessInfo> all_processes();
// The environment `pid` was started with ("NAME=value" entries, each ended by a NUL); nullopt when it cannot
// be read. It reads empty for a process started with none, and for a moment in the middle of an execve (the
// new image's environment is not in place yet): an empty one says nothing for sure.
std::optional<std::string> environment_of(int pid);
// The value of `name` in such an environment; nullopt when unset.
std::optional<std::string> environment_entry(std::string_view environ, std::string_view name);
// This boot's id (random per boot), "" when unknown.
std::string boot_id();

} // namespace gpudoctor::proc
