#include "app/probe_run.hpp"

#include "collect/collect_probes.hpp"

#include <cstdio>
#include <mutex>
#include <unistd.h>

namespace gpudoctor {

void run_probes(SystemView& view, const CheckOptions& opt, Facts& facts) {
  const bool replay = view.kind() == "replay";
  if (!opt.probes && !replay) return;
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  std::mutex mutex; // the framework probe reports from its own thread
  bool line_open = false;
  auto clear = [&] {
    if (line_open) std::fputs("\r\033[K", stderr);
    line_open = false;
  };
  ProbeSay note = [&](const std::string& what) {
    std::lock_guard lock(mutex);
    clear();
    std::fprintf(stderr, "gpudoctor: %s\n", what.c_str());
  };
  ProbeSay progress = [&](const std::string& what) {
    if (!terminal) return;
    std::lock_guard lock(mutex);
    clear();
    std::fprintf(stderr, "gpudoctor: %s ...", what.c_str());
    line_open = true;
  };
  InstalledProbes installed(own_folder(), note);
  ProbeOptions popt;
  popt.requested = opt.probes;
  popt.timeout = std::chrono::milliseconds(opt.probe_timeout_ms);
  popt.source = replay ? nullptr : &installed;
  popt.progress = progress;
  collect_probes(view, popt, facts);
  std::lock_guard lock(mutex);
  clear();
}

} // namespace gpudoctor
