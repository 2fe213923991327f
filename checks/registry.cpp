// The explicit table of checks (no self-registration: a static library would drop it silently).
#include "checks/registry.hpp"

namespace gpudoctor {

const std::vector<CheckEntry>& check_registry() {
  using namespace checks;
  static const std::vector<CheckEntry> table = {
      {"gpu.none", gpu_none},
      {"gpu.unknown-model", gpu_unknown_model},
      {"driver.not-bound", driver_not_bound},
      {"driver.nouveau", driver_nouveau},
      {"driver.nvidia-mismatch", driver_nvidia_mismatch},
      {"driver.kfd-missing", driver_kfd_missing},
      {"driver.dkms-broken", driver_dkms_broken},
      {"driver.secure-boot", driver_secure_boot},
      {"pcie.link-degraded", pcie_link_degraded},
      {"pcie.iommu-not-pt", pcie_iommu_not_pt},
      {"cuda.no-driver", cuda_no_driver},
      {"cuda.driver-too-old", cuda_driver_too_old},
      {"cuda.path-mismatch", cuda_path_mismatch},
      {"rocm.gpu-unsupported", rocm_gpu_unsupported},
      {"rocm.os-unsupported", rocm_os_unsupported},
      {"rocm.multiple", rocm_multiple},
      {"rocm.igpu-visible", rocm_igpu_visible},
      {"stack.both-vendors", stack_both_vendors},
      {"stack.leftover-paths", stack_leftover_paths},
      {"env.hsa-override-invalid", env_hsa_override_invalid},
      {"env.hsa-override-mismatch", env_hsa_override_mismatch},
      {"env.hsa-override-unneeded", env_hsa_override_unneeded},
      {"env.visible-devices-empty", env_visible_devices_empty},
      {"env.visible-devices-foreign", env_visible_devices_foreign},
      {"env.nccl-unknown", env_nccl_unknown},
      {"env.nccl-invalid", env_nccl_invalid},
      {"env.nccl-p2p-disabled", env_nccl_p2p_disabled},
      {"env.nccl-ifname-missing", env_nccl_ifname_missing},
      {"env.nccl-socket-default", env_nccl_socket_default},
      {"env.nccl-risky", env_nccl_risky},
      {"env.rccl-fine-grain", env_rccl_fine_grain},
      {"env.alloc-conf-invalid", env_alloc_conf_invalid},
      {"env.alloc-conf-shadowed", env_alloc_conf_shadowed},
      {"perm.kfd", perm_kfd},
      {"perm.render-node", perm_render_node},
      {"perm.nvidia-dev", perm_nvidia_dev},
      {"torch.missing", torch_missing},
      {"torch.cpu-build", torch_cpu_build},
      {"torch.vendor-mismatch", torch_vendor_mismatch},
      {"torch.cuda-too-new", torch_cuda_too_new},
      {"python.foreign-wheels", python_foreign_wheels},
      {"repo.codename-mismatch", repo_codename_mismatch},
      {"repo.unreachable", repo_unreachable},
      {"container.nvidia-runtime", container_nvidia_runtime},
      {"container.rocm-devices", container_rocm_devices},
      {"tool.timeout", tool_timeout},
      {"tool.failed", tool_failed},
      {"tool.untrusted", tool_untrusted},
      {"torch.arch-missing", torch_arch_missing},
      {"torch.no-device", torch_no_device},
      {"probe.runtime-devices", probe_runtime_devices},
      {"probe.kernel", probe_kernel},
      {"probe.memory-bandwidth", probe_memory_bandwidth},
      {"probe.host-bandwidth", probe_host_bandwidth},
      {"probe.p2p", probe_p2p},
      {"probe.alloc", probe_alloc},
      {"probe.timeout", probe_timeout},
      // After the install (issue 13)
      {"kernel.xid", kernel_xid},
      {"kernel.gpu-lost", kernel_gpu_lost},
      {"kernel.gpu-reset", kernel_gpu_reset},
      {"driver.init-failed", driver_init_failed},
      {"driver.firmware-missing", driver_firmware_missing},
      {"driver.module-flavour", driver_module_flavour},
      {"driver.amdgpu-params", driver_amdgpu_params},
      {"driver.amdgpu-rocm", driver_amdgpu_rocm},
      {"gpu.xgmi-links", gpu_xgmi_links},
      {"gpu.mig", gpu_mig},
      {"gpu.bar-small", gpu_bar_small},
      {"gpu.nvlink-down", gpu_nvlink_down},
      {"fabric.manager", fabric_manager},
      {"gpu.memory-errors", gpu_memory_errors},
      {"gpu.throttled", gpu_throttled},
      // Issue 12: the software layer above the driver.
      {"python.extension-mismatch", python_extension_mismatch},
      {"python.libs-shadowed", python_libs_shadowed},
      {"env.cuda-stubs", env_cuda_stubs},
      {"wsl.driver", wsl_driver},
      {"container.shm-small", container_shm_small},
      {"container.cuda-require", container_cuda_require},
      {"rdma.memlock", rdma_memlock},
      {"env.nccl-ib-hca-missing", env_nccl_ib_hca_missing},
  };
  return table;
}

CheckTable builtin_checks() {
  return CheckTable{check_registry(), wsl_skip_reason, input_skip_reason};
}

} // namespace gpudoctor
