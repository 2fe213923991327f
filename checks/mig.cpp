// gpu.mig: a GPU in MIG mode runs CUDA only in its MIG devices (a GPU instance with a compute instance), and
// a mode change waits for a GPU reset (NVIDIA's MIG user guide). Read only: gpudoctor never changes MIG mode.
#include "checks/common.hpp"
#include "checks/registry.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

bool mig_without_devices(const Facts& f, const Gpu& gpu) {
  const NvidiaSmiGpu* smi = gpu.vendor == Vendor::nvidia ? f.smi_of(gpu) : nullptr;
  return smi && smi->mig_current == "Enabled" && smi->mig_devices == 0;
}

void gpu_mig(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const std::string key = smi_source(f);
  bool any = false;
  for (const auto& smi : f.nvidia.smi_gpus) {
    if (smi.mig_current.empty()) continue; // N/A: this GPU has no MIG
    any = true;
    const Gpu* gpu = f.gpu_of(smi);
    const std::string subject = gpu ? gpu->subject() : smi.bus_id;
    const std::string index = gpu ? std::to_string(gpu->index) : smi.bus_id;
    std::vector<std::string> evidence = {fmt::format("{}: GPU {}: MIG mode current {}, pending {}", key,
                                                     smi.bus_id, smi.mig_current,
                                                     smi.mig_pending.empty() ? "N/A" : smi.mig_pending)};
    if (smi.mig_devices)
      evidence.push_back(fmt::format("{}: GPU {}: {} MIG device{}", key, smi.bus_id, *smi.mig_devices,
                                     *smi.mig_devices == 1 ? "" : "s"));
    if (!smi.mig_pending.empty() && smi.mig_pending != smi.mig_current) {
      out.add(Status::warn, subject,
              fmt::format("MIG mode is {} on {} and {} is pending: the change takes effect only after a GPU "
                          "reset (nvidia-smi --gpu-reset -i {} once no process holds the GPU: stop "
                          "nvidia-persistenced and monitoring agents such as DCGM first) or a reboot. Until "
                          "then CUDA sees the GPU as it is now.",
                          smi.mig_current == "Enabled" ? "on" : "off", smi.name,
                          smi.mig_pending == "Enabled" ? "on" : "off", index),
              evidence);
      out.act(Action::command({{"sudo", "nvidia-smi", "--gpu-reset", "-i", smi.bus_id}}));
      continue;
    }
    if (smi.mig_current != "Enabled") {
      out.pass(subject, "MIG mode is off: CUDA sees the whole GPU", evidence);
      continue;
    }
    if (!smi.mig_devices) {
      out.skip(subject, "MIG mode is on; nvidia-smi did not list the MIG devices (the text form of -q)");
      continue;
    }
    if (*smi.mig_devices == 0) {
      out.add(
          Status::error, subject,
          fmt::format("MIG mode is on for {} but it has no MIG device (GPU instance with a compute "
                      "instance), so CUDA sees no device on this GPU: enabling MIG mode alone is not enough. "
                      "Create instances (sudo nvidia-smi mig -i {} -cgi <profile ids> -C; sudo nvidia-smi "
                      "mig -lgip lists the profiles), or turn MIG off (sudo nvidia-smi -i {} -mig 0).",
                      smi.name, index, index),
          evidence);
      out.act(
          Action::step(fmt::format("Create MIG instances on GPU {} (sudo nvidia-smi mig -i {} -cgi <profile "
                                   "ids> -C), or turn MIG off (sudo nvidia-smi -i {} -mig 0)",
                                   smi.bus_id, index, index)));
      continue;
    }
    out.pass(
        subject,
        fmt::format("MIG mode is on with {} MIG device{}: CUDA sees those, not the whole GPU; select one by "
                    "its MIG UUID (nvidia-smi -L) in CUDA_VISIBLE_DEVICES (before driver R570 and CUDA 12 "
                    "a process sees only one)",
                    *smi.mig_devices, *smi.mig_devices == 1 ? "" : "s"),
        evidence);
  }
  if (!any) out.skip("", "no NVIDIA GPU reports a MIG mode (MIG: A100, A30, H100, H200 and later)");
}

} // namespace gpudoctor::checks
