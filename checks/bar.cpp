// gpu.bar-small: the BAR1 window against the GPU's memory. The CPU and other PCIe devices reach GPU memory
// through BAR1: GPUDirect RDMA maps a NIC's registrations there (NVIDIA's GPUDirect RDMA guide: BAR space is
// "the primary resource consumed by GPUDirect RDMA mappings"), and without Resizable BAR it stays 256 MiB.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string size_text(long long mib) {
  return mib >= 1024 && mib % 1024 == 0 ? fmt::format("{} GiB", mib / 1024) : fmt::format("{} MiB", mib);
}

} // namespace

void gpu_bar_small(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const std::string key = smi_source(f);
  const bool rdma = !f.network.ib_devices.empty();
  bool any = false;
  for (const auto& smi : f.nvidia.smi_gpus) {
    if (!smi.bar1_total_mib || !smi.memory_total_mib || *smi.memory_total_mib <= 0) continue; // N/A: GH200
    any = true;
    const Gpu* gpu = f.gpu_of(smi);
    const std::string subject = gpu ? gpu->subject() : smi.bus_id;
    const long long bar = *smi.bar1_total_mib, memory = *smi.memory_total_mib;
    std::vector<std::string> evidence = {
        fmt::format("{}: GPU {}: BAR1 total {} MiB, memory total {} MiB", key, smi.bus_id, bar, memory)};
    if (bar >= memory) {
      out.pass(subject,
               fmt::format("BAR1 ({}) spans the GPU's memory ({})", size_text(bar), size_text(memory)),
               evidence);
      continue;
    }
    if (!rdma) {
      out.pass(
          subject,
          fmt::format("BAR1 is {} of the GPU's {} (Resizable BAR is off): enough without GPUDirect RDMA, "
                      "which maps GPU memory through it",
                      size_text(bar), size_text(memory)),
          evidence);
      continue;
    }
    evidence.push_back(fmt::format("{}: {}", f.network.ib_source, text::join(f.network.ib_devices, " ")));
    out.add(
        Status::warn, subject,
        fmt::format("BAR1 of {} is {} of its {} (Resizable BAR is off) and this machine has RDMA devices "
                    "({}): GPUDirect RDMA maps GPU memory through BAR1, so a NIC can register at most about "
                    "{} of it at once (less what the driver reserves); larger registrations fail and "
                    "NCCL/UCX fall back to copies through host memory. Turn on Resizable BAR in the "
                    "firmware (Above 4G Decoding and Re-Size BAR Support) where the GPU offers it, or use a "
                    "GPU with a large BAR1.",
                    smi.name, size_text(bar), size_text(memory), text::join(f.network.ib_devices, ", "),
                    size_text(bar)),
        evidence);
    out.act(
        Action::step("Turn on Above 4G Decoding and Re-Size BAR Support in the system firmware, then reboot "
                     "and check nvidia-smi -q's BAR1 Memory Usage"));
  }
  if (!any) out.skip("", "no NVIDIA GPU reports its BAR1 and memory size (nvidia-smi -q -x)");
}

} // namespace gpudoctor::checks
