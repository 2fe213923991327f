#include "app/probe_idle.hpp"

#include <fmt/format.h>

namespace gpudoctor {

std::vector<std::string> busy_gpus(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& gpu : f.gpus) {
    std::string why;
    if (const NvidiaSmiGpu* smi = f.smi_of(gpu)) {
      if (smi->compute_processes.value_or(0) > 0)
        why = fmt::format("{} compute process{}", *smi->compute_processes,
                          *smi->compute_processes == 1 ? "" : "es");
      else if (smi->gpu_utilization.value_or(0) > k_busy_percent)
        why = fmt::format("{} % utilization", *smi->gpu_utilization);
    } else if (gpu.sensors.busy_percent.value_or(0) > k_busy_percent) {
      why = fmt::format("{} % busy", *gpu.sensors.busy_percent);
    }
    if (!why.empty()) out.push_back(fmt::format("{}: {}", gpu.subject(), why));
  }
  return out;
}

} // namespace gpudoctor
