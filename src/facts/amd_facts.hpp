// AMD's compute stack: the KFD and rocminfo.
#pragma once

#include "facts/fact.hpp"
#include "facts/gpu_facts.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct RocmAgent {
  std::string name;           // gfx1100
  std::string marketing_name; // AMD Radeon RX 7900 XTX
  std::string device_type;    // GPU / CPU
  std::optional<int> node;
};

struct AmdFacts {
  bool kfd_device = false;                 // /dev/kfd exists
  bool kfd_topology = false;               // /sys/class/kfd/kfd/topology/nodes readable
  std::vector<KfdNode> kfd_nodes;          // every node, CPUs too
  Fact<std::string> amdgpu_module_version; // /sys/module/amdgpu/version (DKMS builds only)
  bool rocminfo_ok = false;
  std::vector<RocmAgent> rocminfo_agents;
  Fact<std::string> rocminfo_failure; // ROCk not loaded, permission denied, ...
  Fact<std::string> rocminfo_runtime_version;
  // /sys/module/amdgpu/parameters: each readable parameter's value as the module holds it (-1 is "auto",
  // not what the driver resolved; lockup_timeout is a text, empty when unset). Empty when not loaded.
  std::map<std::string, std::string> amdgpu_params;
  std::string amdgpu_params_source; // the folder read; "" when it could not be listed
};

} // namespace gpudoctor
