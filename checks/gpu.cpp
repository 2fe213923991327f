// gpu.none, gpu.unknown-model
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

void gpu_none(const CheckContext& ctx, Results& out) {
  const auto& gpus = ctx.facts.gpus;
  if (gpus.empty()) {
    out.add(Status::info, "", "No NVIDIA or AMD GPU on the PCI bus.",
            {fmt::format("{}: no display, 3D or processing-accelerator function of vendor 0x10de or 0x1002",
                         paths::pci_devices)});
    return;
  }
  std::vector<std::string> evidence;
  for (const auto& gpu : gpus)
    evidence.push_back(gpu_evidence(gpu));
  out.pass("", fmt::format("{} GPU{} on the PCI bus.", gpus.size(), gpus.size() == 1 ? "" : "s"), evidence);
}

void gpu_unknown_model(const CheckContext& ctx, Results& out) {
  if (ctx.facts.gpus.empty()) return out.skip("", "no GPU");
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.model) {
      out.pass(gpu.subject(), fmt::format("{} ({})", gpu.model->name, gpu.model->arch), {gpu_evidence(gpu)});
      continue;
    }
    std::string name = gpu.pci_ids_name ? fmt::format(" pci.ids calls it \"{}\".", *gpu.pci_ids_name) : "";
    // The KFD still names the ISA of an unknown AMD board; only model-specific figures are missing then.
    std::string missing =
        gpu.kfd_target ? fmt::format("its memory size and bandwidth are not known to the checks (the KFD "
                                     "says it is {}).",
                                     *gpu.kfd_target)
                       : "its architecture and memory are not known to the checks.";
    out.add(Status::info, gpu.subject(),
            fmt::format("This GPU's PCI id is not in gpudoctor's knowledge tables, so {}{}", missing, name),
            {gpu_evidence(gpu)});
  }
}

} // namespace gpudoctor::checks
