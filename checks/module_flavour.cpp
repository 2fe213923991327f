// driver.module-flavour: the NVIDIA kernel-module flavour (open or proprietary) against what each GPU family
// supports (knowledge nvidia_module_flavours), and NVRM's own "requires use of the NVIDIA open kernel
// modules".
#include "checks/common.hpp"
#include "checks/kernel_common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

struct Flavour {
  bool open = false;
  std::string evidence;
};

// The flavour of the loaded module (/proc/driver/nvidia/version), else of the installed one (modinfo's
// license).
std::optional<Flavour> flavour_of(const Facts& f) {
  const auto& nv = f.nvidia;
  if (nv.kernel_module_version && nv.kernel_module_version.source.starts_with(paths::nvidia_driver_version))
    return Flavour{nv.open_kernel_module,
                   fmt::format("{}: {} kernel module {}", nv.kernel_module_version.source,
                               nv.open_kernel_module ? "open" : "proprietary", *nv.kernel_module_version)};
  if (nv.modinfo_license) {
    bool open = *nv.modinfo_license != "NVIDIA";
    return Flavour{open, fmt::format("{}: license {} ({}){}", nv.modinfo_license.source, *nv.modinfo_license,
                                     open ? "open" : "proprietary",
                                     nv.modinfo_filename ? fmt::format(", {}", *nv.modinfo_filename) : "")};
  }
  return std::nullopt;
}

const KernelEvent* open_demanded(const Facts& f, const Gpu& gpu) {
  for (const auto& e : f.kernel_log.events)
    if (e.kind == KernelEventKind::open_module_required && e.boot == 0 &&
        gpu_of_event(f, e, Vendor::nvidia) == &gpu)
      return &e;
  return nullptr;
}

} // namespace

void driver_module_flavour(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.count(Vendor::nvidia) == 0) return out.skip("", "no NVIDIA GPU");
  auto flavour = flavour_of(f);
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::nvidia) continue;
    std::vector<std::string> evidence = {gpu_evidence(gpu)};
    if (const KernelEvent* e = open_demanded(f, gpu)) {
      for (auto& line : event_evidence(*e))
        evidence.push_back(std::move(line));
      out.add(Status::error, gpu.subject(),
              fmt::format(
                  "The NVIDIA driver refuses {}: it \"requires use of the NVIDIA open kernel modules\" "
                  "({}). Install the open flavour of the driver (nvidia-open, nvidia-driver-<branch>-open) "
                  "instead of the proprietary one and reboot.",
                  gpu.display_name(), event_when(*e)),
              evidence);
      continue;
    }
    if (!flavour) {
      out.skip(gpu.subject(), "no NVIDIA kernel module is loaded or installed to judge");
      continue;
    }
    const ModuleFlavourRow* row = gpu.model ? ctx.kb.health.module_flavour(*gpu.model) : nullptr;
    if (!row) {
      out.skip(gpu.subject(), fmt::format("the knowledge tables do not say which module flavours {} needs",
                                          gpu.display_name()));
      continue;
    }
    evidence.push_back(flavour->evidence);
    evidence.push_back(fmt::format("knowledge nvidia_module_flavours {}{}: open {}, proprietary {}; {}",
                                   row->family, row->model.empty() ? "" : fmt::format(" {}", row->model),
                                   row->open, row->proprietary, row->source));
    Status bad = row->uncertain ? Status::warn : Status::error;
    if (!flavour->open && row->open == "required")
      out.add(
          bad, gpu.subject(),
          fmt::format("{} ({}) runs only with the open NVIDIA kernel modules, and the proprietary ones are "
                      "installed: the driver does not bring it up. Install the open flavour (nvidia-open, "
                      "nvidia-driver-<branch>-open) and reboot.",
                      gpu.display_name(), row->family),
          evidence);
    else if (flavour->open && row->open == "unsupported")
      out.add(bad, gpu.subject(),
              fmt::format(
                  "{} ({}) predates the GSP the open NVIDIA kernel modules need: only the proprietary "
                  "modules drive it, and the open ones are installed. Install the proprietary flavour of a "
                  "driver branch that still supports the GPU and reboot.",
                  gpu.display_name(), row->family),
              evidence);
    else
      out.pass(
          gpu.subject(),
          fmt::format("the {} kernel modules drive {}", flavour->open ? "open" : "proprietary", row->family),
          evidence);
  }
}

} // namespace gpudoctor::checks
