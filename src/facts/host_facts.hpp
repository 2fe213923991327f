// The machine around the GPUs: network, device nodes and who may open them, WSL2, /dev/shm, memlock, RDMA
// ports, the loader's folders.
#pragma once

#include "system/system_view.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// An IP address of an interface, as `ip addr` prints it.
struct IpAddress {
  std::string interface;
  int family = 4;      // 4 or 6
  std::string address; // "10.0.0.5", "fe80::380d:bfff:fe5b:54d2"
  int prefix = -1;
  std::string scope; // "global", "link", "host", "site"
};

// What sysfs says of one network interface (/sys/class/net/<name>), read where NCCL may pick one.
struct NetInterface {
  std::string name;
  std::optional<int> type;       // ARPHRD_*: 1 Ethernet, 32 InfiniBand, 772 loopback, 65534 none (tun, wg)
  std::optional<unsigned> flags; // IFF_*: 0x1 up, 0x40 running, 0x8 loopback
  bool device = false;           // a `device` link: backed by hardware (a PCI or virtio function)
  std::string driver;            // that device's driver (mlx5_core, virtio_net, ixgbe)
  bool bridge = false;           // a `bridge` folder: a Linux bridge (docker0, br-*, virbr0, cni0)
  bool tun = false;              // a `tun_flags` file: tun or tap (tailscale0, tun0, vnet*)
  bool peer_link = false;        // iflink differs from ifindex: veth, a tunnel's lower device
  std::vector<IpAddress> addresses;
};

// Network interfaces and RDMA devices, by name.
struct NetworkFacts {
  std::optional<std::vector<std::string>> interfaces; // /sys/class/net; empty optional: not readable
  std::vector<std::string> ib_devices;                // /sys/class/infiniband (IB and RoCE HCAs)
  std::string interfaces_source, ib_source;
  // Each interface in detail, with `ip addr`'s addresses: taken only on a machine with GPUs (NCCL's choice of
  // interface, env.nccl-socket-default); empty when not taken. At most k_max_net_interfaces.
  std::vector<NetInterface> details;
  bool addresses_read = false; // `ip -o addr show` answered (key ip-addr)
};
inline constexpr std::size_t k_max_net_interfaces = 256;

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
