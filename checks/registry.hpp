// Declarations of every check function; the table in registry.cpp lists them in run order.
#pragma once

#include "engine/check.hpp"

namespace gpudoctor {

// Every check, in the order they run (registry.cpp).
const std::vector<CheckEntry>& check_registry();
// Why a check makes no sense under WSL2, or null (wsl.cpp).
const char* wsl_skip_reason(std::string_view id);
// Why a check is not judged on this machine because an input it needs was left out for a bound, or empty
// (inputs.cpp).
std::string input_skip_reason(std::string_view id, const Facts& facts);
// The three together, for run_checks.
CheckTable builtin_checks();

} // namespace gpudoctor

namespace gpudoctor::checks {

void gpu_none(const CheckContext&, Results&);
void gpu_mig(const CheckContext&, Results&);
void container_cuda_require(const CheckContext&, Results&);
void env_nccl_socket_default(const CheckContext&, Results&);
void gpu_bar_small(const CheckContext&, Results&);
void gpu_nvlink_down(const CheckContext&, Results&);
void gpu_nvlink_errors(const CheckContext&, Results&);
void gpu_unknown_model(const CheckContext&, Results&);
void driver_not_bound(const CheckContext&, Results&);
void driver_nouveau(const CheckContext&, Results&);
void driver_nvidia_mismatch(const CheckContext&, Results&);
void driver_kfd_missing(const CheckContext&, Results&);
void driver_dkms_broken(const CheckContext&, Results&);
void driver_secure_boot(const CheckContext&, Results&);
void pcie_link_degraded(const CheckContext&, Results&);
void pcie_iommu_not_pt(const CheckContext&, Results&);
void cuda_path_mismatch(const CheckContext&, Results&);
void rocm_gpu_unsupported(const CheckContext&, Results&);
void rocm_igpu_visible(const CheckContext&, Results&);
void rocm_os_unsupported(const CheckContext&, Results&);
void rocm_multiple(const CheckContext&, Results&);
void stack_leftover_paths(const CheckContext&, Results&);
void torch_cuda_too_new(const CheckContext&, Results&);
void python_foreign_wheels(const CheckContext&, Results&);
void repo_codename_mismatch(const CheckContext&, Results&);
void repo_unreachable(const CheckContext&, Results&);
void container_nvidia_runtime(const CheckContext&, Results&);
void container_rocm_devices(const CheckContext&, Results&);
void container_nvidia_devices(const CheckContext&, Results&);
void cuda_no_driver(const CheckContext&, Results&);
void cuda_driver_too_old(const CheckContext&, Results&);
void stack_both_vendors(const CheckContext&, Results&);
void env_hsa_override_invalid(const CheckContext&, Results&);
void env_hsa_override_mismatch(const CheckContext&, Results&);
void env_visible_devices_empty(const CheckContext&, Results&);
void env_visible_devices_foreign(const CheckContext&, Results&);
void env_hsa_override_unneeded(const CheckContext&, Results&);
void env_nccl_unknown(const CheckContext&, Results&);
void env_nccl_invalid(const CheckContext&, Results&);
void env_nccl_p2p_disabled(const CheckContext&, Results&);
void env_nccl_ifname_missing(const CheckContext&, Results&);
void env_nccl_risky(const CheckContext&, Results&);
void env_rccl_fine_grain(const CheckContext&, Results&);
void env_alloc_conf_invalid(const CheckContext&, Results&);
void env_alloc_conf_shadowed(const CheckContext&, Results&);
void perm_kfd(const CheckContext&, Results&);
void perm_render_node(const CheckContext&, Results&);
void perm_nvidia_dev(const CheckContext&, Results&);
void torch_missing(const CheckContext&, Results&);
void torch_cpu_build(const CheckContext&, Results&);
void torch_vendor_mismatch(const CheckContext&, Results&);
void tool_timeout(const CheckContext&, Results&);
void tool_failed(const CheckContext&, Results&);
void tool_untrusted(const CheckContext&, Results&);
void torch_arch_missing(const CheckContext&, Results&);
void torch_no_device(const CheckContext&, Results&);
void probe_runtime_devices(const CheckContext&, Results&);
void probe_kernel(const CheckContext&, Results&);
void probe_memory_bandwidth(const CheckContext&, Results&);
void probe_host_bandwidth(const CheckContext&, Results&);
void probe_p2p(const CheckContext&, Results&);
void probe_alloc(const CheckContext&, Results&);
void probe_timeout(const CheckContext&, Results&);
// After the install (issue 13)
void kernel_xid(const CheckContext&, Results&);
void kernel_gpu_lost(const CheckContext&, Results&);
void kernel_gpu_reset(const CheckContext&, Results&);
void driver_init_failed(const CheckContext&, Results&);
void driver_firmware_missing(const CheckContext&, Results&);
void driver_module_flavour(const CheckContext&, Results&);
void driver_amdgpu_params(const CheckContext&, Results&);
void driver_amdgpu_rocm(const CheckContext&, Results&);
void gpu_xgmi_links(const CheckContext&, Results&);
void fabric_manager(const CheckContext&, Results&);
void gpu_memory_errors(const CheckContext&, Results&);
void gpu_throttled(const CheckContext&, Results&);
// Issue 12: the software layer above the driver.
void python_extension_mismatch(const CheckContext&, Results&);
void python_libs_shadowed(const CheckContext&, Results&);
void env_cuda_stubs(const CheckContext&, Results&);
void wsl_driver(const CheckContext&, Results&);
void container_shm_small(const CheckContext&, Results&);
void rdma_memlock(const CheckContext&, Results&);
void env_nccl_ib_hca_missing(const CheckContext&, Results&);

} // namespace gpudoctor::checks
