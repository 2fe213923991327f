// Docker and the NVIDIA container toolkit.
#pragma once

#include <string>
#include <vector>

namespace gpudoctor {

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
};

} // namespace gpudoctor
