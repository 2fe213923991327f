// Declarations of every check function; the table in registry.cpp lists them in run order.
#pragma once

#include "check/check.hpp"

namespace gpudoctor::checks {

void gpu_none(const CheckContext&, Results&);
void gpu_unknown_model(const CheckContext&, Results&);
void driver_not_bound(const CheckContext&, Results&);
void driver_nouveau(const CheckContext&, Results&);
void driver_nvidia_mismatch(const CheckContext&, Results&);
void driver_kfd_missing(const CheckContext&, Results&);
void cuda_no_driver(const CheckContext&, Results&);
void cuda_driver_too_old(const CheckContext&, Results&);
void stack_both_vendors(const CheckContext&, Results&);
void env_hsa_override_invalid(const CheckContext&, Results&);
void env_hsa_override_mismatch(const CheckContext&, Results&);
void env_visible_devices_empty(const CheckContext&, Results&);
void perm_kfd(const CheckContext&, Results&);
void perm_render_node(const CheckContext&, Results&);
void perm_nvidia_dev(const CheckContext&, Results&);
void torch_missing(const CheckContext&, Results&);
void torch_cpu_build(const CheckContext&, Results&);
void torch_vendor_mismatch(const CheckContext&, Results&);
void tool_timeout(const CheckContext&, Results&);
void tool_failed(const CheckContext&, Results&);

} // namespace gpudoctor::checks
