// pcie.link-degraded, pcie.iommu-not-pt
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// "16.0 GT/s PCIe" / "8 GT/s" -> 16.0 / 8.0.
std::optional<double> gts(const std::optional<std::string>& speed) {
  if (!speed) return std::nullopt;
  auto words = text::split(*speed, ' ');
  if (words.empty()) return std::nullopt;
  return text::to_double(words.front());
}

std::string speed_text(const std::optional<std::string>& s) {
  std::string t = s.value_or("?");
  if (text::ends_with(t, " PCIe")) t = t.substr(0, t.size() - 5);
  return t;
}

// "x16 at 16.0 GT/s"; "?" for what sysfs does not say.
std::string lanes_at_speed(std::optional<int> width, const std::optional<std::string>& speed) {
  return fmt::format("x{} at {}", width ? std::to_string(*width) : "?", speed_text(speed));
}

} // namespace

void pcie_link_degraded(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.gpus.empty()) return out.skip("", "no GPU");
  for (const auto& gpu : f.gpus) {
    bool width_known = gpu.link_width_current && gpu.link_width_max;
    auto cur = gts(gpu.link_speed_current), max = gts(gpu.link_speed_max);
    if (!width_known && !(cur && max)) {
      out.skip(gpu.subject(), "no PCIe link status in sysfs (a virtual or integrated GPU)");
      continue;
    }
    std::vector<std::string> evidence;
    if (width_known)
      evidence.push_back(fmt::format("{}/current_link_width: {}, max_link_width: {}", gpu.source,
                                     *gpu.link_width_current, *gpu.link_width_max));
    if (cur && max)
      evidence.push_back(fmt::format("{}/current_link_speed: {}, max_link_speed: {}", gpu.source,
                                     *gpu.link_speed_current, *gpu.link_speed_max));
    // An idle GPU lowers its link speed to save power (knowledge.md §9.7); only nvidia-smi says it is busy.
    const NvidiaSmiGpu* smi = gpu.vendor == Vendor::nvidia ? f.smi_of(gpu) : nullptr;
    bool busy =
        smi && (smi->performance_state == "P0" || (smi->gpu_utilization && *smi->gpu_utilization >= 5));
    if (smi && (!smi->performance_state.empty() || smi->gpu_utilization))
      evidence.push_back(
          fmt::format("cmd nvidia-smi-xml: performance state {}, utilization {}",
                      smi->performance_state.empty() ? "?" : smi->performance_state,
                      smi->gpu_utilization ? fmt::format("{} %", *smi->gpu_utilization) : "?"));
    bool narrow = width_known && *gpu.link_width_current < *gpu.link_width_max;
    bool slow = cur && max && *cur + 0.01 < *max;
    std::string link = lanes_at_speed(gpu.link_width_current, gpu.link_speed_current);
    std::string full = lanes_at_speed(gpu.link_width_max, gpu.link_speed_max);
    if (narrow || (slow && busy)) {
      std::string why = narrow ? "fewer lanes than it can use (a link's width does not drop to save power)"
                               : "a lower speed while the GPU is busy";
      out.add(
          Status::warn, gpu.subject(),
          fmt::format("{} runs its PCIe link {} of {}: {}. Host transfers and peer traffic get slower. "
                      "Reseat the card, use a slot wired for the full width, check risers and the BIOS link "
                      "settings; dmesg shows \"limited by ... link\" at boot.",
                      gpu.display_name(), link, full, why),
          evidence);
      continue;
    }
    if (slow) {
      std::string idle = smi && !smi->performance_state.empty()
                             ? fmt::format("the GPU is idle ({})", smi->performance_state)
                             : "nothing says the GPU is busy";
      out.pass(
          gpu.subject(),
          fmt::format("link {} of {}: {}, and idle GPUs lower the link speed; only a lower speed under load "
                      "means a degraded link",
                      link, full, idle),
          evidence);
      continue;
    }
    out.pass(gpu.subject(), fmt::format("link {}, its maximum", link), evidence);
  }
}

void pcie_iommu_not_pt(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  // An integrated GPU beside a discrete one is no second GPU for RCCL (rocm.igpu-visible hides it).
  std::size_t amd = discrete_amd_count(ctx);
  if (amd < 2) return out.skip("", "fewer than two discrete AMD GPUs");
  if (!f.os.kernel_cmdline || !f.os.kernel_params) return out.skip("", "the kernel command line is unknown");
  const KernelCmdline& cmdline = *f.os.kernel_params;
  std::vector<std::string> evidence = {
      fmt::format("{}: {}", f.os.kernel_cmdline.source, *f.os.kernel_cmdline)};
  if (cmdline.iommu_passthrough())
    return out.pass("", "the kernel command line sets IOMMU passthrough", evidence);
  if (auto key = cmdline.iommu_off_by())
    return out.pass(
        "",
        fmt::format("{}=off: the IOMMU does not remap (AMD does not recommend it, but the multi-GPU "
                    "hang it causes cannot happen)",
                    *key),
        evidence);
  out.add(
      Status::warn, "",
      fmt::format("{} AMD GPUs and the kernel command line lacks iommu=pt: AMD asks for it on multi-GPU "
                  "systems to prevent application hangs, and RCCL warns about it at start. Add iommu=pt to "
                  "GRUB_CMDLINE_LINUX_DEFAULT, update-grub and reboot (Radeon cards that rely on PCIe "
                  "peer-to-peer may prefer the default IOMMU mode).",
                  amd),
      evidence);
}

} // namespace gpudoctor::checks
