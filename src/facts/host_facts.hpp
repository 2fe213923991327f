// The machine around the GPUs: network, device nodes and who may open them, WSL2, /dev/shm, memlock, RDMA
// ports, the loader's folders.
#pragma once

#include "system/system_view.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// Network interfaces and RDMA devices, by name.
struct NetworkFacts {
  std::optional<std::vector<std::string>> interfaces; // /sys/class/net; empty optional: not readable
  std::vector<std::string> ib_devices;                // /sys/class/infiniband (IB and RoCE HCAs)
  std::string interfaces_source, ib_source;
};

struct DeviceNode {
  std::string path;
  std::optional<FileStat> stat; // empty: missing
  bool accessible = false;      // the user can open it read-write (from mode, owner, group, identity)
  std::string why_not;
};

struct PermissionFacts {
  Identity identity;
  std::optional<DeviceNode> kfd;
  std::vector<DeviceNode> render_nodes;
  std::vector<DeviceNode> nvidia_nodes; // /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidiaN
};

struct IbPort {
  std::string device; // mlx5_0
  int port = 0;
  std::string state;      // ACTIVE, DOWN, INIT, ARMED (the word of "4: ACTIVE")
  std::string link_layer; // InfiniBand, Ethernet (RoCE)
  std::string source;
};

// A folder the dynamic loader searches: LD_LIBRARY_PATH entries first, then ld.so.conf's, in that order.
struct LoaderDir {
  std::string dir;
  std::string origin;                            // "env LD_LIBRARY_PATH", "/etc/ld.so.conf.d/cuda.conf:1"
  std::optional<std::vector<std::string>> files; // its listing; empty optional: not read or not a folder
};

struct HostFacts {
  std::string wsl_evidence;                         // why this is WSL2 (the kernel release); empty: not WSL
  std::optional<std::vector<std::string>> wsl_libs; // /usr/lib/wsl/lib, the libraries Windows provides
  std::optional<FileStat> dxg;                      // /dev/dxg, the GPU paravirtualisation device
  std::vector<std::string> wsl_shadows;             // a Linux driver installed inside the distribution
  std::optional<std::uint64_t> shm_bytes;           // size of /dev/shm (df-shm), read in containers
  std::string shm_source;
  std::optional<std::string> memlock_soft, memlock_hard; // "unlimited" or bytes (/proc/self/limits)
  std::string memlock_source;
  std::vector<IbPort> ib_ports;
  std::vector<LoaderDir> loader_dirs;
};

} // namespace gpudoctor
