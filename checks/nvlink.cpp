// gpu.nvlink-down: an NVLink that is not active while the GPU's other links, or other GPUs' links, are.
// DCGM's health watch calls a down link a failure (DCGM_FR_NVLINK_DOWN, modules/health/DcgmHealthWatch.cpp)
// except on a GPU in MIG mode, whose links NVML reports down. A GPU whose links are all inactive on a machine
// where no GPU has an active one is a PCIe card without a bridge: no finding (DCGM's false alarm there).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool any_active(const NvlinkGpu& g) {
  return std::ranges::any_of(g.links, &NvlinkLink::active);
}

} // namespace

void gpu_nvlink_down(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!f.nvidia.nvlink_read)
    return out.skip("", "nvidia-smi nvlink -s was not asked (fewer than two NVIDIA GPUs)");
  const auto& gpus = f.nvidia.nvlink;
  const bool machine_has_nvlink = std::ranges::any_of(gpus, any_active);
  bool any = false;
  for (const auto& g : gpus) {
    if (g.links.empty()) continue;
    any = true;
    const NvidiaSmiGpu* smi = f.smi_of(g);
    const Gpu* gpu = smi ? f.gpu_of(*smi) : nullptr;
    const std::string subject = gpu ? gpu->subject() : fmt::format("GPU {}", g.index);
    std::vector<std::string> down, evidence;
    int active = 0;
    for (const auto& l : g.links) {
      if (l.active) {
        ++active;
        continue;
      }
      down.push_back(std::to_string(l.link));
      evidence.push_back(
          fmt::format("cmd nvidia-smi-nvlink-s: GPU {} ({}): Link {}: <inactive>", g.index, g.uuid, l.link));
    }
    if (down.empty()) {
      out.pass(subject, fmt::format("all {} NVLinks active", g.links.size()));
      continue;
    }
    if (smi && smi->mig_current == "Enabled") {
      out.skip(subject, "in MIG mode NVML reports the GPU's NVLinks down (DCGM ignores them there)");
      continue;
    }
    if (!machine_has_nvlink) {
      out.pass(subject, "no GPU here has an active NVLink: PCIe GPUs without NVLink bridges");
      continue;
    }
    evidence.insert(evidence.begin(), fmt::format("cmd nvidia-smi-nvlink-s: GPU {}: {} of {} links active",
                                                  g.index, active, g.links.size()));
    out.add(
        Status::error, subject,
        fmt::format("NVLink {} {} of {} ({} of its {} links) {} down while NVLink is in use on this machine: "
                    "traffic over {} falls back to the remaining links or to PCIe, and NCCL's NVLink rings "
                    "lose bandwidth or fail. Reset the GPU or reboot (the links train at driver load); if a "
                    "link stays down, the board or its NVLink bridge needs service.",
                    down.size() == 1 ? "link" : "links", text::join(down, ", "), g.name, down.size(),
                    g.links.size(), down.size() == 1 ? "is" : "are", down.size() == 1 ? "it" : "them"),
        evidence);
    out.act(
        Action::step(fmt::format("Reboot (or sudo nvidia-smi -r -i {} once no process uses the GPU) and run "
                                 "nvidia-smi nvlink -s again; a link still inactive needs the board serviced",
                                 g.index)));
  }
  if (!any) out.skip("", "nvidia-smi lists no NVLink on these GPUs");
}

} // namespace gpudoctor::checks
