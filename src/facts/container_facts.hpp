// Docker and the NVIDIA container toolkit.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// An NVIDIA_REQUIRE_* value as the NVIDIA container toolkit reads it: alternatives (space-separated, ORed) of
// constraints (comma-separated, ANDed) on the host's cuda, driver, arch and brand.
struct NvidiaRequireConstraint {
  std::string key; // lower case: cuda, driver, arch, brand
  std::string op;  // =, !=, <, <=, >, >=
  std::string value;
};
using NvidiaRequirement = std::vector<std::vector<NvidiaRequireConstraint>>;

// One NVIDIA_REQUIRE_* variable of this environment (an image's), or the cuda>=X.Y the toolkit makes of a
// legacy image's CUDA_VERSION; `parsed` empty: the toolkit's "invalid expression".
struct NvidiaRequireVar {
  std::string name, value;
  std::optional<NvidiaRequirement> parsed;
};

struct ContainerFacts {
  bool docker_installed = false; // docker on PATH, or a docker package
  std::string docker_evidence;
  bool docker_info_ok = false;       // `docker info` answered (the daemon runs and we may ask it)
  std::string docker_info_error;     // why not: "permission denied while trying to connect ..."
  std::vector<std::string> runtimes; // docker info Runtimes
  std::string default_runtime;
  std::vector<std::string> daemon_json_runtimes; // "runtimes" of /etc/docker/daemon.json (rootless too)
  std::string daemon_json_source;
  bool nvidia_toolkit_config = false; // /etc/nvidia-container-runtime/config.toml exists
  // NVIDIA_REQUIRE_* of the environment (not NVIDIA_REQUIRE_JETPACK*, which the toolkit leaves out), parsed
  // by the link stage; NVIDIA_DISABLE_REQUIRE as the toolkit reads it (Go's ParseBool).
  std::vector<NvidiaRequireVar> nvidia_requirements;
  bool nvidia_disable_require = false;
};

} // namespace gpudoctor
