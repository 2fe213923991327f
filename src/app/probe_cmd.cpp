// gpudoctor probe: build (when needed) and run the GPU probes, and report what the probe checks make of them.
// With --if-idle (the probe unit, a Slurm epilog: docs/fleet.md, "Probe figures") no probe runs while a GPU
// is busy: the probes take every GPU's memory bandwidth and much of its memory for seconds.
#include "app/commands.hpp"
#include "app/pipeline.hpp"
#include "app/probe_idle.hpp"
#include "system/live_view.hpp"
#include "util/text.hpp"

namespace gpudoctor {

Outcome cmd_probe(const CheckOptions& options) {
  CheckOptions opt = options;
  opt.probes = true;
  opt.probe_run = true;
  if (opt.only.empty())
    opt.only = {"probe.runtime-devices", "probe.kernel",       "probe.memory-bandwidth",
                "probe.host-bandwidth",  "probe.p2p",          "probe.alloc",
                "probe.timeout",         "torch.arch-missing", "torch.no-device"};
  if (opt.if_idle && !opt.from) {
    auto data = load_data(opt);
    if (!data) return std::unexpected(data.error());
    CheckOptions look = opt;
    look.probes = false;
    LiveView live;
    auto now = run_pipeline(live, *data, look);
    if (!now) return std::unexpected(now.error());
    if (auto busy = busy_gpus(now->facts); !busy.empty()) {
      diag::note("no probe run (--if-idle): {}", text::join(busy, "; "));
      return Exit::ok;
    }
  }
  return cmd_check(opt);
}

} // namespace gpudoctor
