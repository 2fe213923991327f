// What container.rocm-devices decides and the checks of the same devices defer to (one cause, one finding): a
// container with ROCm on an AMD host started without /dev/kfd or the render nodes.
#pragma once

#include "engine/check.hpp"

#include <string>
#include <vector>

namespace gpudoctor::checks {

struct RocmDevicesInContainer {
  bool amd_host = false;   // amdgpu, the KFD topology or an AMD GPU on the PCI bus
  bool needs_rocm = false; // ROCm, a ROCm PyTorch or HSA_/HIP_/ROCR_ variables in the container
  bool kfd_missing = false, render_missing = false; // not passed in, where ROCm needs them
  std::vector<std::string> evidence;
};
// Empty (all false) outside a container.
RocmDevicesInContainer rocm_devices_in_container(const Facts& f);

} // namespace gpudoctor::checks
