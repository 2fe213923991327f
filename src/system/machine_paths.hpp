// Every path of the kernel's pseudo file systems (/sys, /proc) and device nodes (/dev) gpudoctor reads.
// Only src/system/ spells them: collectors and checks name them through these constants, so one list says
// what gpudoctor touches on a machine (docs/snapshot.md mirrors it).
#pragma once

#include <string>

namespace gpudoctor::paths {

// procfs (Documentation/filesystems/proc.rst)
inline constexpr const char* kernel_release = "/proc/sys/kernel/osrelease";
inline constexpr const char* kernel_arch = "/proc/sys/kernel/arch";
inline constexpr const char* kernel_cmdline = "/proc/cmdline";
inline constexpr const char* init_cgroup = "/proc/1/cgroup";
inline constexpr const char* modules = "/proc/modules";
inline constexpr const char* nvidia_driver_version = "/proc/driver/nvidia/version";
inline constexpr const char* self_exe = "/proc/self/exe"; // gpudoctor's own binary, to find its probes
// gpudoctor's own processes (system/process_table): never recorded, never replayed.
inline constexpr const char* proc_root = "/proc"; // /proc/<pid>/stat, /proc/<pid>/environ
inline constexpr const char* boot_id = "/proc/sys/kernel/random/boot_id"; // names gpudoctor's temp folders

// sysfs (Documentation/ABI/testing/sysfs-bus-pci, sysfs-module; amdkfd topology)
inline constexpr const char* pci_devices = "/sys/bus/pci/devices";
inline constexpr const char* kfd_topology_nodes = "/sys/class/kfd/kfd/topology/nodes";
inline std::string module_version(const std::string& module) {
  return "/sys/module/" + module + "/version";
}
inline std::string module_parameters(const std::string& module) {
  return "/sys/module/" + module + "/parameters";
}
inline std::string kfd_io_links(int node) {
  return std::string(kfd_topology_nodes) + "/" + std::to_string(node) + "/io_links";
}
// Network interfaces and RDMA (InfiniBand / RoCE) devices (Documentation/ABI/testing/sysfs-class-net,
// sysfs-class-infiniband): one entry per device, named as the kernel names it.
inline constexpr const char* net_class = "/sys/class/net";
inline constexpr const char* infiniband_class = "/sys/class/infiniband";

// After the install (docs/snapshot.md): who may read the kernel log
// (Documentation/admin-guide/sysctl/kernel.rst); a PCI device's folder and amdgpu's RAS counters in it
// (amdgpu_ras.c: <device>/ras/<block>_err_count).
inline constexpr const char* dmesg_restrict = "/proc/sys/kernel/dmesg_restrict";
inline std::string pci_device(const std::string& bdf) {
  return std::string(pci_devices) + "/" + bdf;
}
// amdgpu's hwmon sensors (Documentation/gpu/amdgpu/thermal.rst): <device>/hwmon/hwmonN/temp1_input (edge,
// millidegrees Celsius), power1_average or power1_input (microwatts), power1_cap (microwatts); and beside
// them <device>/gpu_busy_percent (how busy the GPU is, in percent).
inline std::string pci_hwmon(const std::string& bdf) {
  return pci_device(bdf) + "/hwmon";
}
inline std::string amdgpu_ras(const std::string& bdf) {
  return pci_device(bdf) + "/ras";
}

// device nodes
inline constexpr const char* kfd = "/dev/kfd";
inline constexpr const char* dev_null = "/dev/null";
inline constexpr const char* dri = "/dev/dri";
inline constexpr const char* nvidia_ctl = "/dev/nvidiactl";
inline constexpr const char* nvidia_uvm = "/dev/nvidia-uvm";
inline std::string dri_node(const std::string& name) {
  return std::string(dri) + "/" + name;
}
inline std::string render_node(int minor) {
  return dri_node("renderD" + std::to_string(minor));
}
inline std::string nvidia_gpu_node(int index) {
  return "/dev/nvidia" + std::to_string(index);
}

// Issue 12: limits, shared memory, RDMA ports and WSL2's GPU device.
inline constexpr const char* self_limits = "/proc/self/limits"; // proc(5): the memlock limit
inline constexpr const char* dev_shm = "/dev/shm";              // POSIX shared memory (NCCL's SHM transport)
inline constexpr const char* dxg = "/dev/dxg";                  // WSL2's paravirtualised GPU
inline std::string infiniband_ports(const std::string& device) {
  return std::string(infiniband_class) + "/" + device + "/ports";
}
inline std::string infiniband_port_file(const std::string& device, const std::string& port,
                                        const char* name) {
  return infiniband_ports(device) + "/" + port + "/" + name;
}

} // namespace gpudoctor::paths
