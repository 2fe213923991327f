// gpu.none, gpu.unknown-model
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"

namespace gpudoctor::checks {

void gpu_none(const CheckContext& ctx, Results& out) {
  const auto& gpus = ctx.facts.gpus;
  if (gpus.empty()) {
    out.add(Status::info, "", "No NVIDIA or AMD GPU on the PCI bus.",
            {std::string(paths::pci_devices) +
             ": no display, 3D or processing-accelerator function of vendor 0x10de or 0x1002"});
    return;
  }
  std::vector<std::string> evidence;
  for (const auto& gpu : gpus)
    evidence.push_back(gpu_evidence(gpu));
  out.pass("", std::to_string(gpus.size()) + " GPU" + (gpus.size() == 1 ? "" : "s") + " on the PCI bus.",
           evidence);
}

void gpu_unknown_model(const CheckContext& ctx, Results& out) {
  if (ctx.facts.gpus.empty()) return out.skip("", "no GPU");
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.model) {
      out.pass(gpu.subject(), gpu.model->name + " (" + gpu.model->arch + ")", {gpu_evidence(gpu)});
      continue;
    }
    std::string name = gpu.pci_ids_name ? " pci.ids calls it \"" + *gpu.pci_ids_name + "\"." : "";
    // The KFD still names the ISA of an unknown AMD board; only model-specific figures are missing then.
    std::string missing = gpu.kfd_target
                              ? "its memory size and bandwidth are not known to the checks (the KFD says it "
                                "is " +
                                    *gpu.kfd_target + ")."
                              : "its architecture and memory are not known to the checks.";
    out.add(Status::info, gpu.subject(),
            "This GPU's PCI id is not in gpudoctor's knowledge tables, so " + missing + name,
            {gpu_evidence(gpu)});
  }
}

} // namespace gpudoctor::checks
