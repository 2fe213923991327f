// The GPUs on the PCI bus, with what the knowledge tables and the KFD topology say of each.
#pragma once

#include "facts/fact.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

enum class Vendor { nvidia, amd, other };
std::string vendor_name(Vendor v);

// The model as the knowledge tables know it.
struct GpuModel {
  std::string name;
  std::string arch;                            // "sm_90", "gfx1100"
  std::string family;                          // "Hopper", "RDNA3"
  std::optional<long long> gfx_target_version; // AMD: KFD encoding, 110000
  std::optional<std::uint64_t> vram_bytes;
  std::optional<double> memory_bandwidth_floor_gbps; // a healthy card's copy bandwidth is above this
  std::optional<double> host_bandwidth_floor_gbps;   // host link floor where PCIe sysfs does not tell it
  std::string source; // where the row came from (knowledge file and its source key)
  bool uncertain = false;
};

// A link of a KFD topology node (nodes/N/io_links/M/properties).
struct KfdLink {
  std::optional<long long> type; // 2 = PCIe, 11 = XGMI
  std::optional<long long> node_from, node_to;
  std::string source;
  // XGMI: weight is 15 per hop and max_bandwidth the links the firmware found at driver load times their
  // speed (MB/s): 0 when it found none (kfd_crat.c), for as long as the driver stays loaded.
  std::optional<long long> weight, max_bandwidth;

  bool xgmi() const { return type == 11; }
  // An XGMI link that did not come up at driver load (gpu.xgmi-links); unknown bandwidth is not "down".
  bool down() const { return xgmi() && max_bandwidth == 0; }
};

struct KfdNode {
  int node_id = -1;
  std::optional<long long> gfx_target_version;
  std::optional<long long> vendor_id, device_id;
  std::optional<long long> location_id; // PCI bus/device/function packed as (bus << 8) | devfn
  std::optional<long long> domain;
  std::optional<int> drm_render_minor;
  std::optional<long long> simd_count;
  std::optional<long long> local_mem_size;
  std::string source;
  std::vector<KfdLink> io_links;
  bool io_links_read = false; // the io_links folder was listed
};

// One amdgpu RAS counter file (<device>/ras/<block>_err_count: "ue: N" uncorrectable, "ce: N" corrected).
struct RasCount {
  std::string block; // umc, gfx, sdma, mmhub, xgmi_wafl, ...
  long long ue = 0, ce = 0;
  std::string source;
};

// amdgpu's bad-page table (<device>/ras/gpu_vram_bad_pages: "0x%08x : 0x%08x : R|P|F" per page): pages of
// VRAM with uncorrectable errors, retired (R, reserved), pending retirement (P) or that could not be (F).
struct VramBadPages {
  std::size_t reserved = 0, pending = 0, failed = 0;
  std::vector<std::string> lines; // the first ones with P or F, then R, as printed (at most 8), for evidence
  std::string source;
};

// Readings of the moment from a GPU's hwmon sensors (amdgpu): for the metrics (docs/fleet.md) and
// gpu.throttled (a temperature at its critical limit); NVIDIA's come from nvidia-smi (NvidiaSmiGpu).
// One of amdgpu's hwmon temperatures (temp1 edge, temp2 junction, temp3 mem; the kernel's amdgpu thermal
// documentation): its reading and limits, in degrees Celsius.
struct TempSensor {
  std::string label; // temp<N>_label: "edge", "junction", "mem"; "temp<N>" without one
  double celsius = 0;
  std::optional<double> crit, emergency; // temp<N>_crit (the firmware throttles), _emergency (shutdown)
};

struct GpuSensors {
  std::optional<double> temperature_celsius, power_draw_watts, power_limit_watts;
  std::vector<TempSensor> temperatures; // every temp<N>_input of the hwmon device, N = 1..3
  std::optional<int> busy_percent;      // <device>/gpu_busy_percent
  std::string source;                   // the hwmon folder read
};

struct Gpu {
  std::string bdf; // 0000:01:00.0
  Vendor vendor = Vendor::other;
  unsigned vendor_id = 0, device_id = 0;
  std::optional<unsigned> subsystem_vendor, subsystem_device, revision;
  unsigned pci_class = 0;
  Fact<std::string> driver; // bound kernel driver; empty optional: none bound
  std::optional<int> numa_node;
  std::optional<std::string> link_speed_current, link_speed_max; // "16.0 GT/s PCIe"
  std::optional<int> link_width_current, link_width_max;
  std::optional<std::string> pci_ids_name;       // from the system's pci.ids
  std::optional<GpuModel> model;                 // from the knowledge tables
  std::optional<KfdNode> kfd;                    // the KFD topology node of this GPU (AMD)
  std::optional<std::string> kfd_target;         // gfx target named by the KFD node's gfx_target_version
  std::optional<std::string> render_node;        // /dev/dri/renderD128
  std::optional<std::uint64_t> vram_bytes_sysfs; // amdgpu mem_info_vram_total
  // The BAR through which the CPU and peers reach the GPU's memory (AMD BAR0, NVIDIA BAR1): its size (sysfs
  // resource) and the largest its Resizable BAR offers (resourceN_resize).
  std::optional<std::uint64_t> vram_bar_bytes, vram_bar_offered;
  std::vector<std::string> upstream_ports; // PCIe ports above it, nearest last (sysfs device path)
  std::vector<struct RasCount> ras;        // amdgpu RAS error counters, per IP block
  std::optional<VramBadPages> bad_pages;   // amdgpu's bad-page table, where the GPU has one
  GpuSensors sensors;                      // amdgpu's hwmon
  int virtual_functions = 0;               // its SR-IOV functions (physfn links to it): vGPU, MxGPU
  std::string source;                      // the sysfs folder
  std::string display_name() const;        // best name: model, pci.ids, or ids
  std::string arch() const;                // gfx/sm target: the KFD's, else the model's; "" when unknown
  std::optional<long long> gfx_target_version() const; // the KFD's, else the model's
  std::string subject() const;                         // "gpu0 (0000:01:00.0)"
  int index = 0;                                       // position among GPUs, in bus order
};

} // namespace gpudoctor
