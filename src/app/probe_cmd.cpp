// gpudoctor probe: build (when needed) and run the GPU probes, and report what the probe checks make of them.
#include "app/commands.hpp"

namespace gpudoctor {

Outcome cmd_probe(const CheckOptions& options) {
  CheckOptions opt = options;
  opt.probes = true;
  if (opt.only.empty())
    opt.only = {"probe.runtime-devices", "probe.kernel",       "probe.memory-bandwidth",
                "probe.host-bandwidth",  "probe.p2p",          "probe.alloc",
                "probe.timeout",         "torch.arch-missing", "torch.no-device"};
  return cmd_check(opt);
}

} // namespace gpudoctor
