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
      {"cuda.no-driver", cuda_no_driver},
      {"cuda.driver-too-old", cuda_driver_too_old},
      {"stack.both-vendors", stack_both_vendors},
      {"env.hsa-override-invalid", env_hsa_override_invalid},
      {"env.hsa-override-mismatch", env_hsa_override_mismatch},
      {"env.visible-devices-empty", env_visible_devices_empty},
      {"perm.kfd", perm_kfd},
      {"perm.render-node", perm_render_node},
      {"perm.nvidia-dev", perm_nvidia_dev},
      {"torch.missing", torch_missing},
      {"torch.cpu-build", torch_cpu_build},
      {"torch.vendor-mismatch", torch_vendor_mismatch},
      {"tool.timeout", tool_timeout},
      {"tool.failed", tool_failed},
  };
  return table;
}

} // namespace gpudoctor
