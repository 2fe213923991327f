// driver.amdgpu-params: amdgpu module parameters with documented consequences for compute (knowledge
// amdgpu_params.yaml), each resolved to the value the module holds and where it was set.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool matches(const std::string& rule, const std::string& value) {
  if (rule != "negative") return value == rule;
  // lockup_timeout: one value or a comma list ([GFX,Compute,SDMA,Video]); any element below 0 is infinite.
  return std::ranges::any_of(text::split(value, ',', true), [](const std::string& element) {
    auto n = text::to_int(text::trim(element));
    return n && *n < 0;
  });
}

// What the default means on this machine's AMD GPUs: the row's auto, or auto_off on a target it names.
std::string default_meaning(const CheckContext& ctx, const AmdgpuParamRow& row) {
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.vendor != Vendor::amd) continue;
    if (std::ranges::find(row.auto_off_targets, gpu_gfx(gpu)) != row.auto_off_targets.end())
      return row.auto_off;
  }
  return row.auto_text;
}

} // namespace

void driver_amdgpu_params(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.count(Vendor::amd) == 0) return out.skip("", "no AMD GPU");
  if (f.os.in_container)
    return out.skip("", "in a container: the host's kernel holds the amdgpu module and its parameters");
  const auto& sysfs = f.amd.amdgpu_params;
  const std::string& dir = f.amd.amdgpu_params_source;
  const KernelCmdline* cmdline = f.os.kernel_params ? &*f.os.kernel_params : nullptr;
  bool judged = false;
  for (const auto& row : ctx.kb.amdgpu_params) {
    auto held = sysfs.find(row.name);
    std::optional<std::string> on_cmdline =
        cmdline ? cmdline->module_param("amdgpu", row.name) : std::optional<std::string>{};
    if (held == sysfs.end() && !on_cmdline)
      continue; // this module has no such parameter, and nothing sets it
    judged = true;
    const std::string subject = "amdgpu." + row.name;
    const std::string value = held != sysfs.end() ? held->second : *on_cmdline;
    std::vector<std::string> evidence;
    if (held != sysfs.end()) evidence.push_back(fmt::format("{}/{}: {}", dir, row.name, held->second));
    if (on_cmdline)
      evidence.push_back(fmt::format("{}: amdgpu.{}={}", f.os.kernel_cmdline.source, row.name, *on_cmdline));
    // Where the value comes from: the module holds what the command line, /etc/modprobe.d or the initramfs
    // gave it; without the module loaded, the command line says what it will get.
    bool from_cmdline = on_cmdline && (held == sysfs.end() || *on_cmdline == held->second);
    std::string where = from_cmdline ? "on the kernel command line"
                        : held == sysfs.end()
                            ? ""
                            : "where the module is loaded (an options line of /etc/modprobe.d, "
                              "or the initramfs)";
    auto harmful = std::ranges::find_if(row.harmful, [&](const auto& h) { return matches(h.value, value); });
    if (harmful == row.harmful.end()) {
      if (value == row.default_value)
        out.pass(subject,
                 fmt::format("amdgpu.{} is {}, the default: {}", row.name, value.empty() ? "unset" : value,
                             default_meaning(ctx, row)),
                 evidence);
      else
        out.pass(subject,
                 fmt::format("amdgpu.{}={}, set {}, is not known to hurt compute (the default, {}, means {})",
                             row.name, value, where, row.default_value.empty() ? "unset" : row.default_value,
                             default_meaning(ctx, row)),
                 evidence);
      continue;
    }
    std::string remedy =
        from_cmdline
            ? fmt::format("Remove amdgpu.{}={} from the kernel command line (GRUB_CMDLINE_LINUX_DEFAULT in "
                          "/etc/default/grub, then sudo update-grub) and reboot.",
                          row.name, *on_cmdline)
            : fmt::format("Remove {}={} from the \"options amdgpu\" line that sets it (grep -r amdgpu "
                          "/etc/modprobe.d), rebuild the initramfs (sudo update-initramfs -u) and reboot.",
                          row.name, value);
    out.add(harmful->status == "warn" ? Status::warn : Status::info, subject,
            fmt::format("amdgpu.{}={}, set {}: {}. The default ({}) means {}.", row.name, value, where,
                        harmful->why, row.default_value.empty() ? "unset" : row.default_value,
                        default_meaning(ctx, row)),
            evidence, no_fix);
    out.act(Action::step(remedy));
  }
  if (judged) return;
  if (dir.empty())
    return out.skip("", "amdgpu's parameters could not be read (the module is not loaded, or this is a "
                        "snapshot without them) and the kernel command line sets none of those judged");
  out.pass("", fmt::format("{} shows none of the parameters judged", dir));
}

} // namespace gpudoctor::checks
