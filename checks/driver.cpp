// driver.not-bound, driver.nouveau, driver.nvidia-mismatch, driver.kfd-missing
#include "checks/common.hpp"
#include "checks/container_common.hpp"
#include "checks/registry.hpp"
#include "checks/secure_boot.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

void driver_not_bound(const CheckContext& ctx, Results& out) {
  if (ctx.facts.gpus.empty()) return out.skip("", "no GPU");
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.driver) {
      out.pass(gpu.subject(), fmt::format("bound to {}", *gpu.driver), {gpu.driver.source});
      continue;
    }
    bool nvidia = gpu.vendor == Vendor::nvidia;
    if (module_refused(ctx, gpu.vendor)) { // installing the driver again would not help
      out.skip(gpu.subject(),
               fmt::format("no kernel driver is bound: the kernel refused the installed {} module for its "
                           "signature (driver.secure-boot)",
                           nvidia ? "nvidia" : "amdgpu"));
      continue;
    }
    out.add(Status::error, gpu.subject(),
            fmt::format("{} is on the PCI bus but no kernel driver is bound to it, so no program can use it. "
                        "Install {}, then reboot.",
                        gpu.display_name(), nvidia ? "the NVIDIA driver" : "the amdgpu driver (ROCm)"),
            {gpu_evidence(gpu), fmt::format("{}/driver: missing", gpu.source)},
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
          {gpu_evidence(gpu), gpu.driver.source});
    }
  }
  if (any) return;
  if (loaded && !nvidia_driver_loaded(ctx.facts)) {
    out.add(
        Status::error, "",
        "The nouveau module is loaded and the NVIDIA driver is not: it will take the GPU at the next boot "
        "and the NVIDIA module cannot load beside it.",
        {fmt::format("{}: nouveau", ctx.facts.modules.source)});
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
    std::vector<std::string> evidence = {
        fmt::format("cmd {}: Failed to initialize NVML: Driver/library version mismatch", key)};
    std::vector<std::string> versions; // "kernel module 580.95.05", "NVML library 580.105.08"
    if (nv.kernel_module_version) {
      versions.push_back(fmt::format("kernel module {}", *nv.kernel_module_version));
      evidence.push_back(fmt::format("{}: {}", nv.kernel_module_version.source, *nv.kernel_module_version));
    }
    if (nv.nvml_library_version) {
      versions.push_back(fmt::format("NVML library {}", *nv.nvml_library_version));
      evidence.push_back(fmt::format("NVML library version: {}", *nv.nvml_library_version));
    }
    std::string which = versions.empty() ? "" : fmt::format(" ({})", text::join(versions, ", "));
    out.add(
        Status::error, "",
        fmt::format("The NVIDIA user-space libraries and the loaded kernel module are different versions{}, "
                    "usually after a driver upgrade without a reboot. Reboot to load the new module.",
                    which),
        evidence);
    return;
  }
  if (!nv.kernel_module_version) return out.skip("", "no NVIDIA kernel module loaded");
  std::string module = *nv.kernel_module_version;
  if (nv.smi_driver_version && *nv.smi_driver_version != module) {
    out.add(Status::error, "",
            fmt::format("nvidia-smi reports driver {} but the loaded kernel module is {}. Reboot to load the "
                        "matching module.",
                        *nv.smi_driver_version, module),
            {fmt::format("{}: {}", nv.kernel_module_version.source, module),
             fmt::format("{}: {}", nv.smi_driver_version.source, *nv.smi_driver_version)});
    return;
  }
  for (const auto& lib : nv.libnvidia_ml_versions) {
    if (lib == module) continue;
    out.add(
        Status::error, "",
        fmt::format("The installed NVIDIA user-space driver is {} but the loaded kernel module is {}: CUDA "
                    "programs will fail with \"driver/library version mismatch\". Reboot to load the new "
                    "module.",
                    lib, module),
        {fmt::format("{}: {}", nv.kernel_module_version.source, module),
         fmt::format("{}: NVIDIA libraries {}", ctx.facts.packages.source, lib)});
    return;
  }
  out.pass("", fmt::format("kernel module and user-space driver are both {}", module),
           {nv.kernel_module_version.source});
}

void driver_kfd_missing(const CheckContext& ctx, Results& out) {
  const auto& amd = ctx.facts.amd;
  bool any = false;
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.driver || *gpu.driver != "amdgpu") continue;
    any = true;
    if (amd.kfd_device && amd.kfd_topology && gpu.kfd) {
      out.pass(gpu.subject(), fmt::format("KFD node {}", gpu.kfd->node_id), {gpu.kfd->source});
      continue;
    }
    if (!amd.kfd_device && rocm_devices_in_container(ctx.facts).kfd_missing) {
      out.skip(gpu.subject(), "the container was started without /dev/kfd (container.rocm-devices)");
      continue;
    }
    std::vector<std::string> evidence = {gpu_evidence(gpu)};
    std::string what;
    if (!amd.kfd_device) {
      what = fmt::format("{} does not exist", paths::kfd);
      evidence.push_back(fmt::format("{}: missing", paths::kfd));
    } else if (!amd.kfd_topology) {
      what = "the KFD topology is missing";
      evidence.push_back(fmt::format("{}: missing", paths::kfd_topology_nodes));
    } else {
      what =
          "no KFD topology node matches this GPU (KFD skipped it, e.g. because PCIe atomics are unavailable)";
      evidence.push_back(fmt::format("{}: no node at {}", paths::kfd_topology_nodes, gpu.bdf));
    }
    out.add(Status::error, gpu.subject(),
            fmt::format("amdgpu drives this GPU but {}, so ROCm cannot see it.", what), evidence);
  }
  if (!any) out.skip("", "no AMD GPU bound to amdgpu");
}

} // namespace gpudoctor::checks
