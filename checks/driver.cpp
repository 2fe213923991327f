// driver.not-bound, driver.nouveau, driver.nvidia-mismatch, driver.kfd-missing
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"

namespace gpudoctor::checks {

void driver_not_bound(const CheckContext& ctx, Results& out) {
  if (ctx.facts.gpus.empty()) return out.skip("", "no GPU");
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.driver) {
      out.pass(gpu.subject(), "bound to " + *gpu.driver, {gpu.driver.source});
      continue;
    }
    bool nvidia = gpu.vendor == Vendor::nvidia;
    out.add(Status::error, gpu.subject(),
            gpu.display_name() +
                " is on the PCI bus but no kernel driver is bound to it, so no program can use "
                "it. Install " +
                (nvidia ? "the NVIDIA driver" : "the amdgpu driver (ROCm)") + ", then reboot.",
            {gpu_evidence(gpu), gpu.source + "/driver: missing"},
            {nvidia ? "install-nvidia" : "install-rocm"});
  }
}

void driver_nouveau(const CheckContext& ctx, Results& out) {
  if (ctx.facts.count(Vendor::nvidia) == 0) return out.skip("", "no NVIDIA GPU");
  bool loaded = ctx.facts.modules.has("nouveau");
  bool any = false;
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.vendor != Vendor::nvidia) continue;
    if (gpu.driver && *gpu.driver == "nouveau") {
      any = true;
      out.add(
          Status::error, gpu.subject(),
          "The open-source nouveau driver owns this GPU; CUDA needs the NVIDIA driver. Blacklist nouveau, "
          "rebuild the initramfs and reboot.",
          {gpu_evidence(gpu), gpu.driver.source}, {"blacklist-nouveau"});
    }
  }
  if (any) return;
  if (loaded && !nvidia_driver_loaded(ctx.facts)) {
    out.add(
        Status::error, "",
        "The nouveau module is loaded and the NVIDIA driver is not: it will take the GPU at the next boot "
        "and the NVIDIA module cannot load beside it.",
        {ctx.facts.modules.source + ": nouveau"}, {"blacklist-nouveau"});
    return;
  }
  out.pass("", loaded ? "nouveau is loaded but owns no NVIDIA GPU" : "nouveau is not in use");
}

void driver_nvidia_mismatch(const CheckContext& ctx, Results& out) {
  const auto& nv = ctx.facts.nvidia;
  if (nv.smi_mismatch) {
    std::string key = "nvidia-smi";
    for (const auto& t : ctx.facts.tools)
      if (t.key.rfind("nvidia-smi", 0) == 0) key = t.key;
    std::vector<std::string> evidence = {"cmd " + key +
                                         ": Failed to initialize NVML: Driver/library version mismatch"};
    std::string msg = "The NVIDIA user-space libraries and the loaded kernel module are different versions";
    if (nv.kernel_module_version) {
      msg += " (kernel module " + *nv.kernel_module_version;
      evidence.push_back(nv.kernel_module_version.source + ": " + *nv.kernel_module_version);
      if (nv.nvml_library_version) msg += ", NVML library " + *nv.nvml_library_version;
      msg += ")";
    } else if (nv.nvml_library_version) {
      msg += " (NVML library " + *nv.nvml_library_version + ")";
    }
    if (nv.nvml_library_version) evidence.push_back("NVML library version: " + *nv.nvml_library_version);
    out.add(Status::error, "",
            msg + ", usually after a driver upgrade without a reboot. Reboot to load the new module.",
            evidence, {"reboot"});
    return;
  }
  if (!nv.kernel_module_version) return out.skip("", "no NVIDIA kernel module loaded");
  std::string module = *nv.kernel_module_version;
  if (nv.smi_driver_version && *nv.smi_driver_version != module) {
    out.add(Status::error, "",
            "nvidia-smi reports driver " + *nv.smi_driver_version + " but the loaded kernel module is " +
                module + ". Reboot to load the matching module.",
            {nv.kernel_module_version.source + ": " + module,
             nv.smi_driver_version.source + ": " + *nv.smi_driver_version},
            {"reboot"});
    return;
  }
  for (const auto& lib : nv.libnvidia_ml_versions) {
    if (lib == module) continue;
    out.add(Status::error, "",
            "The installed NVIDIA user-space driver is " + lib + " but the loaded kernel module is " +
                module +
                ": CUDA programs will fail with \"driver/library version mismatch\". Reboot to load the new "
                "module.",
            {nv.kernel_module_version.source + ": " + module,
             ctx.facts.packages.source + ": NVIDIA libraries " + lib},
            {"reboot"});
    return;
  }
  out.pass("", "kernel module and user-space driver are both " + module, {nv.kernel_module_version.source});
}

void driver_kfd_missing(const CheckContext& ctx, Results& out) {
  const auto& amd = ctx.facts.amd;
  bool any = false;
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.driver || *gpu.driver != "amdgpu") continue;
    any = true;
    if (amd.kfd_device && amd.kfd_topology && gpu.kfd) {
      out.pass(gpu.subject(), "KFD node " + std::to_string(gpu.kfd->node_id), {gpu.kfd->source});
      continue;
    }
    std::vector<std::string> evidence = {gpu_evidence(gpu)};
    std::string what;
    if (!amd.kfd_device) {
      what = std::string(paths::kfd) + " does not exist";
      evidence.push_back(std::string(paths::kfd) + ": missing");
    } else if (!amd.kfd_topology) {
      what = "the KFD topology is missing";
      evidence.push_back(std::string(paths::kfd_topology_nodes) + ": missing");
    } else {
      what =
          "no KFD topology node matches this GPU (KFD skipped it, e.g. because PCIe atomics are unavailable)";
      evidence.push_back(std::string(paths::kfd_topology_nodes) + ": no node at " + gpu.bdf);
    }
    out.add(Status::error, gpu.subject(), "amdgpu drives this GPU but " + what + ", so ROCm cannot see it.",
            evidence, {"install-rocm"});
  }
  if (!any) out.skip("", "no AMD GPU bound to amdgpu");
}

} // namespace gpudoctor::checks
