// Processes are started with posix_spawn, not Boost.Process: Boost 1.74's environment code reads past the end
// of its entries (AddressSanitizer reports it on every run with a custom environment), and posix_spawn gives
// exactly what is needed: an explicit environment, a new process group, and no fork of a threaded process.
// The one exception is a user's interpreter that root inspects as that user (system/root_exec.hpp):
// posix_spawn cannot change credentials, so that child is forked and takes them before it executes, with
// raw system calls only (start_as_user). Each child is reaped by the one reaper (system/reaper) and what it
// leaves behind is found and killed by its run's tag (system/process_tree).
#include "system/process.hpp"

#include "system/machine_paths.hpp"
#include "system/process_tree.hpp"
#include "system/reaper.hpp"
#include "system/root_exec.hpp"
#include "util/diagnostics.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

extern char** environ;

namespace gpudoctor {

using Clock = std::chrono::steady_clock;

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

namespace {

// Owns the file descriptors and spawn attributes of one launch, whatever path leaves run_process.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  // The read end is non-blocking: after a kill, what is left in the pipe is read without waiting.
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0 && ::fcntl(fd[0], F_SETFL, O_NONBLOCK) == 0; }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// Appends what is readable on `fd` to `sink`, keeping at most `cap` bytes (the first ones, or with `tail`
// the last ones: up to twice the cap is held between trims); false at EOF or error.
bool drain(int fd, std::string& sink, std::size_t cap, bool tail, bool& truncated) {
  char buf[16384];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  if (tail) {
    sink.append(buf, static_cast<std::size_t>(n));
    if (sink.size() > 2 * cap) {
      sink.erase(0, sink.size() - cap);
      truncated = true;
    }
    return true;
  }
  std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
  if (static_cast<std::size_t>(n) > room) truncated = true;
  sink.append(buf, std::min(static_cast<std::size_t>(n), room));
  return true;
}

long ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

// The child's complete environment: `env` less what the spec unsets, its extra variables, and the run's tag.
std::vector<std::string> child_environment(const CommandSpec& spec,
                                           const std::map<std::string, std::string>& env,
                                           const std::string& tag) {
  auto unset = [&](const std::string& name) {
    return name == proc::k_run_tag_name || variable_matches(name, spec.unset_env);
  };
  std::vector<std::string> out;
  for (const auto& [name, value] : env)
    if (!spec.extra_env.count(name) && !unset(name)) out.push_back(name + "=" + value);
  for (const auto& [name, value] : spec.extra_env)
    if (name != proc::k_run_tag_name) out.push_back(name + "=" + value);
  out.push_back(std::string(proc::k_run_tag_name) + "=" + tag);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Starts `exe` with stdin from /dev/null, stdout and stderr into the pipes, in a process group of its own (so
// a terminal's Ctrl-C reaches gpudoctor, not the tool) and with default signal handling; 0 or an errno value.
int start_child(const std::string& exe, std::vector<std::string> args, std::vector<std::string> envs,
                Pipe& out, Pipe& err, reaper::Child& child) {
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, paths::dev_null, O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err.fd[1], STDERR_FILENO);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  auto argv = pointers(args);
  auto envp = pointers(envs);
  return reaper::spawn(
      [&](pid_t& pid) {
        return ::posix_spawn(&pid, exe.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
      },
      child);
}

// `fd` moved above 0-2 (the original closed) when it is one of them: gpudoctor started with a standard stream
// closed. The child's dup3 onto 0-2 then never meets one of its own descriptors.
int above_std(int fd) {
  if (fd < 0 || fd > STDERR_FILENO) return fd;
  int up = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  ::close(fd);
  return up;
}

// The child's end when a step failed: its errno to the parent, exit 127 (raw calls: see below).
[[noreturn]] void report_and_exit(int report) {
  int e = errno;
  while (::syscall(SYS_write, report, &e, sizeof e) < 0 && errno == EINTR) {
  }
  ::syscall(SYS_exit_group, 127);
  __builtin_unreachable();
}

// What the child of start_as_user does between fork and exec: only raw system calls, since the parent is
// threaded (another thread may have held malloc's or the user database's locks at the fork). Reports the
// errno of the step that failed on `report` and exits 127; never returns.
[[noreturn]] void become_user_and_exec(const char* exe, char* const* argv, char* const* envp, int in, int out,
                                       int err, int report, int max_fd, const Credentials& c,
                                       const gid_t* groups, std::size_t group_count) {
  auto fail = [report]() { report_and_exit(report); };
  // A process group of its own, default signal handling and nothing blocked, as posix_spawn gives the others
  // (an all-zero kernel sigaction is SIG_DFL on every architecture's layout).
  if (::syscall(SYS_setpgid, 0, 0) != 0) fail();
  unsigned long default_action[4] = {0, 0, 0, 0};
  for (int sig = 1; sig < 65; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::syscall(SYS_rt_sigaction, sig, default_action, nullptr, 8);
  unsigned long no_signals = 0;
  if (::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &no_signals, nullptr, 8) != 0) fail();
  if (::syscall(SYS_dup3, in, STDIN_FILENO, 0) < 0 || ::syscall(SYS_dup3, out, STDOUT_FILENO, 0) < 0 ||
      ::syscall(SYS_dup3, err, STDERR_FILENO, 0) < 0)
    fail();
  // Nothing of root's reaches the user's process: every other descriptor closes (the report pipe closes at
  // exec), even one a library opened without O_CLOEXEC.
  auto close_from_to = [max_fd](int first, int last) {
    if (first > last) return;
#ifdef SYS_close_range
    // Up to the end of the table when `last` is the limit: descriptors above a lowered limit stay open.
    unsigned up_to = last >= max_fd ? ~0U : static_cast<unsigned>(last);
    if (::syscall(SYS_close_range, static_cast<unsigned>(first), up_to, 0) == 0) return;
#endif
    for (int fd = first; fd <= last; ++fd)
      ::syscall(SYS_close, fd);
  };
  close_from_to(STDERR_FILENO + 1, report - 1);
  close_from_to(report + 1, max_fd);
  // Root's working folder is none of the user's business, and may be closed to them.
  if (::syscall(SYS_chdir, "/") != 0) fail();
  // No privilege comes back through exec (setuid files, file capabilities), and none stays ambient.
  if (::syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail();
  ::syscall(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); // EINVAL before Linux 4.3: none
  // The bounding set too, while root may still drop it (EINVAL past the kernel's last capability).
  for (int cap = 0; cap < 64; ++cap)
    ::syscall(SYS_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0);
  // Groups first, while root may still change them; the uid last. glibc's setgroups/setresgid/setresuid
  // would signal every thread of the parent, which the child does not have.
  if (::syscall(SYS_setgroups, group_count, groups) != 0) fail();
  if (::syscall(SYS_setresgid, c.gid, c.gid, c.gid) != 0) fail();
  if (::syscall(SYS_setresuid, c.uid, c.uid, c.uid) != 0) fail();
  // Leaving uid 0 cleared the permitted and effective capabilities; the inheritable ones go too.
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capset, &header, none) != 0) fail();
  // Checked, not assumed: a kernel that kept any of root's rights must not run the user's program.
  uid_t ruid = 0, euid = 0, suid = 0;
  __user_cap_data_struct now[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_getresuid, &ruid, &euid, &suid) != 0 || ruid != c.uid || euid != c.uid || suid != c.uid ||
      ::syscall(SYS_capget, &header, now) != 0) {
    errno = EPERM;
    fail();
  }
  for (const auto& word : now)
    if (word.effective || word.permitted || word.inheritable) {
      errno = EPERM;
      fail();
    }
  ::syscall(SYS_execve, exe, argv, envp);
  report_and_exit(report);
}

// Starts `exe` as the account `c` (a user's interpreter, inspected by root as its owner), with what
// `start_child` gives every child: stdin from /dev/null, the pipes, a process group of its own, default
// signals. The credentials are taken between fork and exec: uid, primary and supplementary groups, no
// capabilities, PR_SET_NO_NEW_PRIVS. 0 or an errno value (of the fork, or of the child's step that failed).
int start_as_user(const std::string& exe, std::vector<std::string> args, std::vector<std::string> envs,
                  Pipe& out, Pipe& err, reaper::Child& child, const Credentials& c) {
  auto argv = pointers(args);
  auto envp = pointers(envs);
  Pipe in; // fd[0]: /dev/null for stdin
  in.fd[0] = above_std(::open(paths::dev_null, O_RDONLY | O_CLOEXEC));
  out.fd[1] = above_std(out.fd[1]);
  err.fd[1] = above_std(err.fd[1]);
  Pipe report; // the child's errno when a step fails; closed by its exec when none does
  if (in.fd[0] < 0 || out.fd[1] < 0 || err.fd[1] < 0 || !report.open()) return errno ? errno : EMFILE;
  report.fd[1] = above_std(report.fd[1]);
  // The read end must block: the child writes to it or closes it at exec.
  if (report.fd[1] < 0 || ::fcntl(report.fd[0], F_SETFL, 0) != 0) return errno ? errno : EMFILE;
  struct rlimit files {};
  int max_fd = ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                   ? static_cast<int>(std::min<rlim_t>(files.rlim_cur, 1 << 20))
                   : 1 << 16;
  const gid_t* groups = c.groups.data();
  std::size_t group_count = c.groups.size();
  int rc = reaper::spawn(
      [&](pid_t& pid) {
        pid = ::fork();
        if (pid < 0) return errno;
        if (pid == 0)
          become_user_and_exec(exe.c_str(), argv.data(), envp.data(), in.fd[0], out.fd[1], err.fd[1],
                               report.fd[1], max_fd, c, groups, group_count);
        return 0;
      },
      child);
  if (rc != 0) return rc;
  report.close_end(1);
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(report.fd[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof child_errno)) return 0; // closed at exec: it runs
  reaper::wait(child);                                         // it exits at once after a report
  return child_errno ? child_errno : EPERM;
}

// Reads the child's output until it has exited and closed it, or until the time limit; after it exits, a
// process it started may hold the output `linger` longer. The child's status, when it exited.
std::optional<reaper::ExitStatus> collect(const reaper::Child& child, Pipe& out, Pipe& err,
                                          Clock::time_point deadline, const ProcessLimits& limits, bool tail,
                                          CommandResult& result) {
  std::optional<reaper::ExitStatus> status;
  Clock::time_point limit = deadline;
  while (out.fd[0] >= 0 || err.fd[0] >= 0 || !status) {
    auto now = Clock::now();
    if (now >= limit) break;
    pollfd fds[3];
    nfds_t n = 0;
    for (Pipe* p : {&out, &err})
      if (p->fd[0] >= 0) fds[n++] = {p->fd[0], POLLIN, 0};
    if (!status) fds[n++] = {child.exit_fd, POLLIN, 0};
    int wait_ms = static_cast<int>(std::max<long>(ms_between(now, limit), 1));
    if (::poll(fds, n, wait_ms) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (fds[i].fd == child.exit_fd) {
        status = reaper::take_status(child);
        if (status) limit = std::min(deadline, Clock::now() + limits.output_linger);
        continue;
      }
      Pipe& p = fds[i].fd == out.fd[0] ? out : err;
      if (!drain(p.fd[0], &p == &out ? result.out : result.err, limits.max_output_bytes, tail,
                 result.truncated))
        p.close_end(0);
    }
  }
  return status;
}

// Kills what is left of the run (its group, its tagged and descendant processes), waits a bounded time for it
// to end, and reads what the pipes still hold. Marks the result unkillable when something outlived SIGKILL.
std::optional<reaper::ExitStatus> finish(const reaper::Child& child, const std::string& tag,
                                         std::optional<reaper::ExitStatus> status, Pipe& out, Pipe& err,
                                         const ProcessLimits& limits, bool tail, CommandResult& result) {
  auto until = Clock::now() + limits.kill_wait;
  auto survivors = proc::kill_run(child.pid, tag, limits.kill_wait);
  while (!status && Clock::now() < until) {
    pollfd fd{child.exit_fd, POLLIN, 0};
    int wait_ms = static_cast<int>(std::max<long>(ms_between(Clock::now(), until), 1));
    if (::poll(&fd, 1, wait_ms) > 0) status = reaper::take_status(child);
  }
  if (!status) reaper::abandon(child);
  result.unkillable = !status || !survivors.empty();
  for (Pipe* p : {&out, &err})
    while (p->fd[0] >= 0 && drain(p->fd[0], p == &out ? result.out : result.err, limits.max_output_bytes,
                                  tail, result.truncated)) {
      pollfd fd{p->fd[0], POLLIN, 0};
      if (::poll(&fd, 1, 0) <= 0) break; // nothing more now: a survivor may hold it open forever
    }
  return status;
}

} // namespace

std::string find_program(const std::string& name, const std::string& path_var) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : std::string{};
  std::size_t start = 0;
  while (start <= path_var.size()) {
    auto end = path_var.find(':', start);
    if (end == std::string::npos) end = path_var.size();
    std::string dir = path_var.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

CommandResult run_process(const CommandSpec& spec, const std::map<std::string, std::string>& env,
                          const ProcessLimits& limits) {
  CommandResult result;
  result.key = spec.key;
  result.argv = spec.argv;
  result.timeout_ms = static_cast<long>(spec.timeout.count());
  if (spec.argv.empty()) {
    result.error = "empty command";
    return result;
  }
  auto path_it = env.find("PATH");
  std::string path_var = path_it == env.end() ? "" : path_it->second;
  std::string exe;
  std::optional<Credentials> as_user;
  const std::map<std::string, std::string>* child_env = &env;
  std::map<std::string, std::string> root_env;
  if (running_as_root()) {
    ProgramChoice choice = choose_program(spec.argv[0], path_var, spec.as_owner_when_untrusted);
    exe = std::move(choice.path);
    as_user = std::move(choice.as_user);
    result.untrusted = std::move(choice.untrusted);
    root_env = root_child_environment(env);
    child_env = &root_env;
  } else {
    exe = find_program(spec.argv[0], path_var);
  }
  if (exe.empty()) {
    result.exit_code = 127;
    return result; // found = false
  }
  result.found = true;

  Pipe out, err;
  if (!out.open() || !err.open()) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::string tag = proc::new_run_tag();
  auto started = Clock::now();
  reaper::Child child;
  auto envs = child_environment(spec, *child_env, tag);
  if (int rc = as_user ? start_as_user(exe, spec.argv, std::move(envs), out, err, child, *as_user)
                       : start_child(exe, spec.argv, std::move(envs), out, err, child);
      rc != 0) {
    result.error = as_user ? fmt::format("cannot start {} as {}: {}", exe, as_user->user, std::strerror(rc))
                           : fmt::format("cannot start {}: {}", exe, std::strerror(rc));
    return result;
  }
  out.close_end(1);
  err.close_end(1);

  auto status = collect(child, out, err, started + spec.timeout, limits, spec.keep_tail, result);
  result.timed_out = !status;
  result.duration_ms = ms_between(started, Clock::now()); // not counting the clean-up below
  // Always: a daemon it started (setsid, double fork) is found by its tag even when the tool exited cleanly.
  status = finish(child, tag, status, out, err, limits, spec.keep_tail, result);
  for (std::string* sink : {&result.out, &result.err})
    if (spec.keep_tail && sink->size() > limits.max_output_bytes) {
      sink->erase(0, sink->size() - limits.max_output_bytes);
      result.truncated = true;
    }
  if (!result.timed_out && status) {
    result.exit_code = status->exit_code;
    result.signal = status->signal;
  }
  return result;
}

int run_foreground(const std::vector<std::string>& argv, ChildOutput output) {
  if (argv.empty()) return 127;
  std::vector<std::string> args = argv;
  auto args_p = pointers(args);
  std::string exe;               // as root: the program chosen by the trust rule, run by its path
  std::vector<std::string> envs; // as root: the cleaned environment
  std::vector<char*> envs_p;
  if (running_as_root()) {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e)
      if (const char* eq = std::strchr(*e, '='))
        env.emplace(std::string(*e, static_cast<std::size_t>(eq - *e)), eq + 1);
    ProgramChoice choice = choose_program(argv[0], env.count("PATH") ? env["PATH"] : "", false);
    for (const auto& u : choice.untrusted)
      diag::error("not run as root: {} ({})", u.path, u.why);
    if (choice.path.empty()) {
      diag::error("cannot run {}: {}", argv[0],
                  choice.untrusted.empty() ? "not found" : "no copy that root can trust");
      return 127;
    }
    exe = choice.path;
    for (const auto& [name, value] : root_child_environment(env))
      envs.push_back(name + "=" + value);
    envs_p = pointers(envs);
  }
  SpawnSetup setup;
  // gpudoctor blocks SIGINT and SIGTERM in its threads (one thread takes them); the step must not inherit
  // that.
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGMASK);
  if (output == ChildOutput::to_stderr)
    posix_spawn_file_actions_adddup2(&setup.actions, STDERR_FILENO, STDOUT_FILENO);
  std::fflush(stdout);
  std::fflush(stderr);
  reaper::Child child;
  int rc = reaper::spawn(
      [&](pid_t& pid) {
        if (!exe.empty())
          return ::posix_spawn(&pid, exe.c_str(), &setup.actions, &setup.attr, args_p.data(), envs_p.data());
        return ::posix_spawnp(&pid, args_p[0], &setup.actions, &setup.attr, args_p.data(), environ);
      },
      child, true);
  if (rc != 0) {
    diag::error("cannot run {}: {}", argv[0], std::strerror(rc));
    return 127;
  }
  reaper::ExitStatus status = reaper::wait(child);
  if (status.exit_code) return *status.exit_code;
  return 128 + status.signal.value_or(0);
}

} // namespace gpudoctor
