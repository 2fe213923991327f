// The one reaper of gpudoctor's children (docs/architecture.md, "Processes").
//
// Collectors run tools from several threads. Instead of each thread reaping its own child (waitpid), one
// thread reaps every child with waitid(P_ALL) and hands each exit status to the thread that started that
// child, through a registry keyed by pid. gpudoctor is also the child subreaper (prctl
// PR_SET_CHILD_SUBREAPER): a grandchild whose parent exits (a daemon that double-forked, a setsid child) is
// re-parented to gpudoctor, not to init, so everything gpudoctor ever started stays below it until it is gone
// (system/process_tree finds and kills it), and the reaper reaps it too. Nothing else in gpudoctor may call
// wait*(): it would steal a status from the reaper.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <sys/types.h>
#include <vector>

namespace gpudoctor::reaper {

// How a child ended.
struct ExitStatus {
  std::optional<int> exit_code; // it exited
  std::optional<int> signal;    // a signal ended it
};

struct Entry; // the registry's record of one child

struct Child {
  pid_t pid = 0;
  int exit_fd = -1; // readable (poll) once the child has been reaped: then call take_status
  // Its own record, not looked up by pid: once reaped, the pid may name a new child before the status is
  // taken.
  std::shared_ptr<Entry> entry;
};

// Makes gpudoctor the subreaper and starts the reaper thread, once; spawn calls it too.
void start();

// Runs `spawn_one` (starts one child: 0 and its pid, or an errno value) with the registry locked, so the
// child cannot be reaped before it is registered. `foreground`: it shares gpudoctor's terminal and process
// group (an
// --apply step), so an interruption is forwarded to it before it is killed. After an interruption, nothing is
// started any more: ECANCELED.
int spawn(const std::function<int(pid_t&)>& spawn_one, Child& child, bool foreground = false);

// The status of a child whose exit_fd is readable, forgetting the child (exit_fd is closed); nullopt if it
// has not been reaped yet.
std::optional<ExitStatus> take_status(const Child& child);
// Blocks until the child has been reaped; for children gpudoctor must wait for (an --apply step).
ExitStatus wait(const Child& child);
// Gives up on a child that does not end (unkillable): the reaper discards its status whenever it comes.
void abandon(const Child& child);

// Registered children that have not been reaped; `foreground` ones only when asked.
std::vector<pid_t> running(bool foreground);
// Whether any child (`foreground`: any --apply step) was ever started.
bool ever_spawned(bool foreground);
// Refuses every later spawn (ECANCELED): the interruption is under way.
void close_spawning();

} // namespace gpudoctor::reaper
