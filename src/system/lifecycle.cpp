#include "system/lifecycle.hpp"

#include "system/process_tree.hpp"
#include "system/reaper.hpp"
#include "system/temp_files.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using namespace std::chrono_literals;

// An --apply step got the signal too (same terminal, same process group): it may finish what it is doing.
constexpr auto k_step_grace = 10s;
// SIGKILL ends a process at once unless it is stuck in the kernel; then it is left.
constexpr auto k_kill_wait = 3s;

// Set first thing when a signal is taken: from then on, the process ends with 128 + the signal, never with
// what main returns (main may finish while its tools are being killed; its report would be of a killed run).
std::atomic<bool> g_stopping{false};

void say(const std::string& text) {
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, text.data(), text.size());
}

[[noreturn]] void stop(int sig) {
  g_stopping = true;
  say(fmt::format("\ngpudoctor: {}: stopping what it started\n",
                  sig == SIGINT ? "interrupted" : "terminated"));
  reaper::close_spawning();
  temp::freeze();
  auto steps = reaper::running(true);
  for (pid_t pid : steps)
    ::kill(pid, sig);
  for (auto until = std::chrono::steady_clock::now() + k_step_grace;
       !reaper::running(true).empty() && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(20ms);
  // After --apply steps, only what the tool runs left: a step may have started a service meant to stay.
  auto leaders = reaper::running(false);
  auto left = reaper::ever_spawned(true)
                  ? proc::kill_all_runs(std::vector<int>(leaders.begin(), leaders.end()),
                                        std::vector<int>(steps.begin(), steps.end()), k_kill_wait)
                  : proc::kill_everything_below_self(k_kill_wait);
  if (!left.empty())
    say(fmt::format("gpudoctor: {} process(es) did not end on SIGKILL (stuck in the kernel); left running\n",
                    left.size()));
  temp::remove_all_registered();
  temp::release_placeholders();
  ::_exit(128 + sig);
}

// Run by exit(). Kills what the tool runs left that their own clean-up could not tie to them
// (system/process_tree), when gpudoctor started something and no --apply step (a step may have started a
// service meant to stay). While an interruption is under way, waits for it to end the process (it calls
// _exit).
void at_exit() {
  if (!g_stopping && reaper::ever_spawned(false) && !reaper::ever_spawned(true))
    proc::kill_everything_below_self(k_kill_wait);
  while (g_stopping)
    ::pause();
}

bool ignored(int sig) {
  struct sigaction now {};
  return ::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN;
}

} // namespace

void start_lifecycle() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM})
    if (!ignored(sig)) sigaddset(&set, sig);
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr); // before any thread: each inherits the mask
  std::atexit(at_exit);
  reaper::start();
  std::thread([set] {
    int sig = 0;
    while (::sigwait(&set, &sig) != 0) {
    }
    stop(sig);
  }).detach();
  temp::remove_stale();
}

} // namespace gpudoctor
