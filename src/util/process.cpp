// Processes are started with posix_spawn, not Boost.Process: Boost 1.74's environment code reads past the end
// of its entries (AddressSanitizer reports it on every run with a custom environment), and posix_spawn gives
// exactly what is needed: an explicit environment, a new process group, and no fork of a threaded process.
#include "util/process.hpp"

#include "system/machine_paths.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpudoctor {

using Clock = std::chrono::steady_clock;

namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Owns the file descriptors and spawn attributes of one launch, whatever path leaves run_process.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
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
  std::string exe = find_program(spec.argv[0], path_it == env.end() ? "" : path_it->second);
  if (exe.empty()) {
    result.exit_code = 127;
    return result; // found = false
  }
  result.found = true;

  std::vector<std::string> env_strings;
  auto unset = [&](const std::string& name) {
    for (const auto& u : spec.unset_env)
      if (u == name ||
          (!u.empty() && u.back() == '*' && name.compare(0, u.size() - 1, u, 0, u.size() - 1) == 0))
        return true;
    return false;
  };
  for (const auto& [name, value] : env)
    if (!spec.extra_env.count(name) && !unset(name)) env_strings.push_back(name + "=" + value);
  for (const auto& [name, value] : spec.extra_env)
    env_strings.push_back(name + "=" + value);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  Pipe out, err;
  SpawnSetup setup;
  if (!out.open() || !err.open()) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, paths::dev_null, O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, err.fd[1], STDERR_FILENO);
  // Its own process group, so a time limit kills the tool's children too; default signal handling.
  posix_spawnattr_setpgroup(&setup.attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawnattr_setflags(&setup.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  auto started = Clock::now();
  auto deadline = started + spec.timeout;
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, exe.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (rc != 0) {
    result.error = "cannot start " + exe + ": " + std::strerror(rc);
    return result;
  }
  out.close_end(1);
  err.close_end(1);

  bool out_open = true, err_open = true, exited = false;
  int status = 0;
  while (true) {
    if (!exited) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      exited = w == pid;
    }
    // Done when the tool has exited and closed its output, or its children gave the output back.
    if (exited && !out_open && !err_open) break;
    auto now = Clock::now();
    if (now >= deadline) break;
    int wait_ms = static_cast<int>(std::min<long>(ms_between(now, deadline), exited ? 50 : 20));
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {out.fd[0], POLLIN, 0};
    if (err_open) fds[n++] = {err.fd[0], POLLIN, 0};
    if (n == 0) {
      ::usleep(2000);
      continue;
    }
    if (::poll(fds, static_cast<nfds_t>(n), std::max(wait_ms, 1)) <= 0) continue;
    for (int i = 0; i < n; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      bool is_out = fds[i].fd == out.fd[0];
      bool open = drain(fds[i].fd, is_out ? result.out : result.err, limits.max_output_bytes, spec.keep_tail,
                        result.truncated);
      (is_out ? out_open : err_open) = open;
    }
  }
  if (!exited || out_open || err_open) {
    ::kill(-pid, SIGKILL); // the whole group: grandchildren holding the pipes too
    if (!exited) ::waitpid(pid, &status, 0);
    result.timed_out = true;
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  for (std::string* sink : {&result.out, &result.err})
    if (spec.keep_tail && sink->size() > limits.max_output_bytes) {
      sink->erase(0, sink->size() - limits.max_output_bytes);
      result.truncated = true;
    }
  result.duration_ms = ms_between(started, Clock::now());
  return result;
}

} // namespace gpudoctor
