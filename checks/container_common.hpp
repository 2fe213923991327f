// What container.rocm-devices and container.nvidia-devices decide and the checks of the same devices defer to
// (one cause, one finding): a container with ROCm on an AMD host started without /dev/kfd or the render
// nodes; a container with CUDA on an NVIDIA host started without its GPUs.
#pragma once

#include "engine/check.hpp"

#include <optional>
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

struct NvidiaDevicesInContainer {
  bool nvidia_host = false;  // the nvidia module (the host's kernel) or an NVIDIA GPU on the PCI bus
  bool needs_cuda = false;   // a CUDA toolkit, a CUDA PyTorch or a CUDA image's variables in the container
  bool gpus_missing = false; // no /dev/nvidiaN node although CUDA needs one
  std::optional<std::string> hiding; // NVIDIA_VISIBLE_DEVICES when it hides every GPU: "void", "none", ""
  std::vector<std::string> evidence;
};
// Empty (all false) outside a container.
NvidiaDevicesInContainer nvidia_devices_in_container(const Facts& f);

} // namespace gpudoctor::checks
