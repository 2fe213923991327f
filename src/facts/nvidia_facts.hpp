// NVIDIA's driver as its kernel module, nvidia-smi and modinfo report it.
#pragma once

#include "facts/fact.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// A GPU's memory, clock and fabric health as `nvidia-smi -q` (text or -x) reports it; empty: not reported
// (N/A).
struct NvidiaGpuHealth {
  std::optional<std::string> ecc_mode; // current: "Enabled", "Disabled"
  // Uncorrectable ECC errors (DRAM + SRAM, or the older double-bit total): volatile counts since the last
  // driver load or GPU reset, aggregate ones over the GPU's life.
  std::optional<long long> volatile_uncorrectable, aggregate_uncorrectable;
  // Corrected ones (DRAM + SRAM, or the older single-bit total): harmless one by one; judged only as an
  // increase between two readings (facts/history_facts.hpp).
  std::optional<long long> volatile_correctable, aggregate_correctable;
  std::optional<long long> retired_sbe, retired_dbe; // retired pages (before Ampere)
  std::optional<bool> retirement_pending;            // a page waits for the next reset to be retired
  std::optional<long long> remapped_correctable, remapped_uncorrectable;
  std::optional<bool> remap_pending, remap_failure; // row remapping (Ampere and later)
  std::optional<bool> reset_required;               // GPU Reset Status: Reset Required
  std::optional<std::string> recovery_action;       // GPU Recovery Action: "None", "Reset", "Reboot", ...
  std::vector<std::string> clocks_held_by; // active: "HW Slowdown", "HW Thermal Slowdown", "HW Power Brake
                                           // Slowdown", "SW Thermal Slowdown"
  std::optional<std::string> fabric_state, fabric_status; // "Completed", "Success"; "N/A" without NVSwitch
};

struct NvidiaSmiGpu {
  std::string name, bus_id, uuid;
  std::string brand; // product_brand: "Tesla", "GeForce", "NVIDIA", "NvidiaRTX" (NVIDIA_REQUIRE_* brand=)
  std::string bdf;   // bus_id as sysfs writes it ("0000:81:00.0"), the key of Facts::gpus (link_facts)
  std::optional<long long> memory_total_mib;
  std::string performance_state;      // "P0" (busy) .. "P8" (idle); empty when not reported
  std::optional<int> gpu_utilization; // percent
  // Readings of the moment (nvidia-smi -q -x): for the metrics (docs/fleet.md); no check judges them yet.
  std::optional<double> temperature_celsius; // temperature/gpu_temp
  std::optional<double> power_draw_watts;    // instant_power_draw, else power_draw, else average_power_draw
  std::optional<double> power_limit_watts;   // current_power_limit, else enforced_power_limit, power_limit
  std::optional<double> sm_clock_mhz, memory_clock_mhz; // clocks/sm_clock, clocks/mem_clock (0 when idle)
  // Compute processes (type C or C+G) nvidia-smi lists on the GPU: empty when it printed no list; a
  // container sees none of the host's (then utilization tells).
  std::optional<int> compute_processes;
  // MIG (Multi-Instance GPU): mode now and after the next GPU reset ("Enabled", "Disabled"; empty: N/A, a GPU
  // without MIG), and the MIG devices (GPU + compute instances) nvidia-smi -q -x lists; unset: not reported.
  std::string mig_current, mig_pending;
  std::optional<int> mig_devices;
  // BAR1, the window through which the CPU and peers (P2P, GPUDirect RDMA) reach the GPU's memory.
  std::optional<long long> bar1_total_mib;
  NvidiaGpuHealth health;
};

// One NVLink of a GPU as `nvidia-smi nvlink -s` reports it: "Link 3: 25.781 GB/s" or "Link 3: <inactive>".
struct NvlinkLink {
  int link = -1;
  bool active = false;
  std::optional<double> gbps; // its speed, when active
  // `nvidia-smi nvlink -e` (key nvidia-smi-nvlink-e): counts since the driver loaded; unset when not read or
  // "N/A". CRC adds up the flit and data counts of the drivers that print them apart.
  std::optional<long long> replay_errors, recovery_errors, crc_errors;
};

struct NvlinkGpu {
  int index = -1; // nvidia-smi's index
  std::string name, uuid;
  std::vector<NvlinkLink> links;
};

struct NvidiaFacts {
  Fact<std::string> kernel_module_version; // /proc/driver/nvidia/version or /sys/module/nvidia/version
  bool open_kernel_module = false;
  Fact<std::string> smi_driver_version;   // nvidia-smi: user-space driver
  Fact<std::string> smi_cuda_version;     // highest CUDA the driver supports
  Fact<std::string> nvml_library_version; // from a "Driver/library version mismatch" failure
  bool smi_mismatch = false;
  bool smi_no_driver = false; // "couldn't communicate with the NVIDIA driver"
  std::vector<NvidiaSmiGpu> smi_gpus;
  std::vector<std::string> libnvidia_ml_versions; // versions of libnvidia-ml.so.X found on disk
  // `modinfo nvidia`: the installed module, loaded or not (license "NVIDIA" = proprietary, "Dual MIT/GPL" =
  // open). Asked only when an NVIDIA GPU is present and no module is loaded.
  Fact<std::string> modinfo_filename, modinfo_version, modinfo_license, modinfo_signer;
  // `nvidia-smi nvlink -s` (key nvidia-smi-nvlink-s): asked where GPUs can have NVLink (two or more NVIDIA
  // GPUs, or a fabric state); empty when not asked or it listed no link.
  std::vector<NvlinkGpu> nvlink;
  bool nvlink_read = false;
  // `nvidia-smi nvlink -e` was read into the links' counters: asked only where a link is active.
  bool nvlink_errors_read = false;
};

} // namespace gpudoctor
