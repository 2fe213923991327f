// gpu.bar-small: the BAR through which the CPU and other PCIe devices reach GPU memory, against the GPU's
// memory. NVIDIA: BAR1; GPUDirect RDMA maps a NIC's registrations there (NVIDIA's GPUDirect RDMA guide: BAR
// space is "the primary resource consumed by GPUDirect RDMA mappings"), and without Resizable BAR it stays
// 256 MiB. AMD: BAR0, the VRAM aperture; amdgpu lets a peer reach a GPU's memory over PCIe only when the BAR
// shows all of it (amdgpu_device_is_peer_accessible, drivers/gpu/drm/amd/amdgpu/amdgpu_device.c:
// visible_vram_size == real_vram_size), what ROCm's documentation calls large BAR.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string size_text(long long mib) {
  return mib >= 1024 && mib % 1024 == 0 ? fmt::format("{} GiB", mib / 1024) : fmt::format("{} MiB", mib);
}

long long bytes_to_mib(std::uint64_t bytes) {
  return static_cast<long long>(bytes >> 20);
}

// What the GPU's Resizable BAR offers (resourceN_resize), as the remedy's sentence.
std::string offered_words(const Gpu& gpu, long long memory_mib, const char* bar) {
  if (!gpu.vram_bar_offered)
    return "Turn on Above 4G Decoding and Re-Size BAR Support in the system firmware.";
  const long long most = bytes_to_mib(*gpu.vram_bar_offered);
  if (most >= memory_mib)
    return fmt::format("The GPU offers a {} of {} (Resizable BAR): turn on Above 4G Decoding and Re-Size BAR "
                       "Support in the system firmware.",
                       bar, size_text(most));
  return fmt::format("The GPU offers a {} of at most {}: only a GPU with a larger BAR helps.", bar,
                     size_text(most));
}

// What resource`bar`_resize offers, as evidence, where the kernel has the file.
void add_offered_evidence(const Gpu& gpu, int bar, std::vector<std::string>& evidence) {
  if (gpu.vram_bar_offered)
    evidence.push_back(fmt::format("{}/resource{}_resize: at most {} MiB offered", gpu.source, bar,
                                   bytes_to_mib(*gpu.vram_bar_offered)));
}

// Why an AMD GPU's BAR must show all of its memory here: PCIe peers (another AMD GPU it has no XGMI link to),
// or RDMA devices. Empty when neither.
std::string amd_bar_need(const Facts& f, const Gpu& gpu) {
  bool xgmi = gpu.kfd && std::ranges::any_of(gpu.kfd->io_links, &KfdLink::xgmi);
  std::vector<std::string> why;
  if (f.count(Vendor::amd) >= 2 && !xgmi)
    why.push_back(fmt::format("{} AMD GPUs that reach each other over PCIe", f.count(Vendor::amd)));
  if (!f.network.ib_devices.empty())
    why.push_back(fmt::format("RDMA devices ({})", text::join(f.network.ib_devices, ", ")));
  return text::join(why, " and ");
}

// AMD GPUs: BAR0 against mem_info_vram_total. Returns whether any GPU had both.
bool judge_amd(const Facts& f, Results& out) {
  bool any = false;
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.vram_bar_bytes || !gpu.vram_bytes_sysfs) continue;
    any = true;
    const long long bar = bytes_to_mib(*gpu.vram_bar_bytes), memory = bytes_to_mib(*gpu.vram_bytes_sysfs);
    std::vector<std::string> evidence = {
        fmt::format("{}/resource: BAR0 {} MiB; mem_info_vram_total {} MiB", gpu.source, bar, memory)};
    add_offered_evidence(gpu, 0, evidence);
    if (bar >= memory) {
      out.pass(gpu.subject(),
               fmt::format("BAR0 ({}) shows all of the GPU's memory ({}): large BAR", size_text(bar),
                           size_text(memory)),
               evidence);
      continue;
    }
    const std::string need = amd_bar_need(f, gpu);
    if (need.empty()) {
      out.pass(gpu.subject(),
               fmt::format("BAR0 is {} of the GPU's {} (no large BAR): enough without PCIe peers or RDMA",
                           size_text(bar), size_text(memory)),
               evidence);
      continue;
    }
    const std::string offered = offered_words(gpu, memory, "BAR0");
    out.add(Status::warn, gpu.subject(),
            fmt::format(
                "BAR0 of {} is {} of its {} (no large BAR) on a machine with {}: amdgpu lets peers reach "
                "a GPU's memory only when the BAR shows all of it, so peer-to-peer copies (hipMemcpyPeer, "
                "RCCL) and RDMA into this GPU's memory go through host memory. {}",
                gpu.display_name(), size_text(bar), size_text(memory), need, offered),
            evidence);
    out.act(
        Action::step("Turn on Above 4G Decoding and Re-Size BAR Support in the system firmware, reboot, and "
                     "check that the GPU's first memory region in lspci -v is as large as its memory"));
  }
  return any;
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
    if (gpu) add_offered_evidence(*gpu, 1, evidence);
    out.add(Status::warn, subject,
            fmt::format(
                "BAR1 of {} is {} of its {} (Resizable BAR is off) and this machine has RDMA devices "
                "({}): GPUDirect RDMA maps GPU memory through BAR1, so a NIC can register at most about "
                "{} of it at once (less what the driver reserves); larger registrations fail and "
                "NCCL/UCX fall back to copies through host memory. {}",
                smi.name, size_text(bar), size_text(memory), text::join(f.network.ib_devices, ", "),
                size_text(bar),
                gpu && gpu->vram_bar_offered
                    ? offered_words(*gpu, memory, "BAR1")
                    : std::string("Turn on Resizable BAR in the firmware (Above 4G Decoding and Re-Size "
                                  "BAR Support) where the GPU offers it, or use a GPU with a large BAR1.")),
            evidence);
    out.act(
        Action::step("Turn on Above 4G Decoding and Re-Size BAR Support in the system firmware, then reboot "
                     "and check nvidia-smi -q's BAR1 Memory Usage"));
  }
  any = judge_amd(f, out) || any;
  if (!any)
    out.skip("", "no GPU reports its BAR and memory size (nvidia-smi -q -x; amdgpu's resource and "
                 "mem_info_vram_total)");
}

} // namespace gpudoctor::checks
