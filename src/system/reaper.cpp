#include "system/reaper.hpp"

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace gpudoctor::reaper {

struct Entry {
  int exit_fd = -1;
  bool foreground = false;
  bool abandoned = false;
  std::optional<ExitStatus> status;
};

namespace {

// Never destroyed: the reaper thread outlives main (it is detached and ends with the process).
struct Registry {
  std::mutex mutex;
  std::condition_variable spawned;                  // wakes the reaper when it had no child
  std::map<pid_t, std::shared_ptr<Entry>> children; // not yet reaped, or reaped and not yet taken
  unsigned long generation = 0;                     // counts spawns, so the reaper never sleeps past one
  bool foreground_spawned = false;                  // an --apply step was started
  bool closed = false;
};

Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

ExitStatus status_of(const siginfo_t& info) {
  ExitStatus s;
  if (info.si_code == CLD_EXITED)
    s.exit_code = info.si_status;
  else
    s.signal = info.si_status; // CLD_KILLED, CLD_DUMPED
  return s;
}

void deliver(Registry& r, const siginfo_t& info) {
  std::lock_guard lock(r.mutex);
  auto it = r.children.find(info.si_pid);
  if (it == r.children.end()) return; // an orphan re-parented to gpudoctor: reaping it was the point
  std::shared_ptr<Entry> e = it->second;
  r.children.erase(it); // the pid is free again: a new child may get it
  if (e->abandoned) {
    ::close(e->exit_fd);
    return;
  }
  e->status = status_of(info);
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(e->exit_fd, &one, sizeof one);
}

[[noreturn]] void reap_forever() {
  Registry& r = registry();
  while (true) {
    unsigned long seen;
    {
      std::lock_guard lock(r.mutex);
      seen = r.generation;
    }
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED) == 0) {
      if (info.si_pid > 0) deliver(r, info);
      continue;
    }
    if (errno != ECHILD) continue; // EINTR
    std::unique_lock lock(r.mutex);
    r.spawned.wait(lock, [&] { return r.generation != seen; });
  }
}

} // namespace

void start() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    std::thread(reap_forever).detach();
  });
}

int spawn(const std::function<int(pid_t&)>& spawn_one, Child& child, bool foreground) {
  start();
  int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) return errno;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.closed) {
    ::close(fd);
    return ECANCELED;
  }
  pid_t pid = 0;
  if (int rc = spawn_one(pid); rc != 0) {
    ::close(fd);
    return rc;
  }
  auto entry = std::make_shared<Entry>(Entry{fd, foreground, false, std::nullopt});
  r.children[pid] = entry;
  ++r.generation;
  r.foreground_spawned = r.foreground_spawned || foreground;
  r.spawned.notify_one();
  child = Child{pid, fd, entry};
  return 0;
}

std::optional<ExitStatus> take_status(const Child& child) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!child.entry || !child.entry->status || child.entry->exit_fd < 0) return std::nullopt;
  ::close(child.entry->exit_fd);
  child.entry->exit_fd = -1;
  return child.entry->status;
}

ExitStatus wait(const Child& child) {
  while (true) {
    if (auto s = take_status(child)) return *s;
    pollfd fd{child.exit_fd, POLLIN, 0};
    ::poll(&fd, 1, -1); // EINTR: look again
  }
}

void abandon(const Child& child) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!child.entry || child.entry->exit_fd < 0) return;
  if (child.entry->status) { // reaped meanwhile
    ::close(child.entry->exit_fd);
    child.entry->exit_fd = -1;
  } else {
    child.entry->abandoned = true; // the reaper closes it when the child is reaped
  }
}

std::vector<pid_t> running(bool foreground) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<pid_t> out;
  for (const auto& [pid, e] : r.children)
    if (!e->abandoned && e->foreground == foreground) out.push_back(pid);
  return out;
}

bool ever_spawned(bool foreground) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return foreground ? r.foreground_spawned : r.generation != 0;
}

void close_spawning() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.closed = true;
}

} // namespace gpudoctor::reaper
