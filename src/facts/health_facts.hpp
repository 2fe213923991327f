// After the install (issue 13): the kernel log, the NVSwitch fabric, the firmware folder.
#pragma once

#include "facts/fact.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// What a kernel-log line says about a GPU (parse/kernel_log.hpp classifies the lines).
enum class KernelEventKind {
  xid,                  // NVRM: Xid (PCI:...): <code>, ...
  sxid,                 // nvidia-nvswitchN: SXid (PCI:...): <code>, Fatal|Non-fatal, ...
  fallen_off_bus,       // NVRM: ... has fallen off the bus
  init_failed,          // NVRM: RmInitAdapter failed
  probe_failed,         // <driver>: probe of <bdf> failed with error <n>; the NVIDIA probe routine failed
  open_module_required, // NVRM: ... requires use of the NVIDIA open kernel modules
  gsp_error,            // NVRM: GSP heartbeat / RPC timeouts, GSP init failures
  reset_required,       // NVRM: ... GPU reset required
  firmware_missing, // Direct firmware load for amdgpu/... (or nvidia/...) failed; NVRM: no GSP firmware image
  ring_timeout,     // amdgpu: ring <name> timeout
  reset_begin,      // amdgpu: GPU reset begin!
  reset_succeeded,  // amdgpu: GPU reset(N) succeeded
  reset_failed,     // amdgpu: GPU reset failed, GPU Recovery Failed, ASIC reset failed
  mes_failure,      // amdgpu: MES failed to respond / might be in unrecoverable state
  init_fatal,       // amdgpu: Fatal error during GPU init
  pcie_aer,         // AER: PCIe errors reported by a port or device
  module_rejected,  // the kernel refused a module load: "Loading of ... is rejected", lockdown's "... module
                    // loading is restricted" (knowledge health.yaml module_refusals tells which lines count)
};
std::string kernel_event_name(KernelEventKind k);

// The lines of one kind, code, PCI address and detail, counted: the log is never kept whole.
struct KernelEvent {
  KernelEventKind kind = KernelEventKind::xid;
  std::optional<int> code; // Xid, SXid
  std::string pci;         // the PCI address the line names, as 0000:01:00.0; "" when it names none
  std::string reporter;    // the device that printed it, when another (the port of an AER line)
  std::string detail;      // Xid text, firmware file, ring name, AER severity, "GPU6" of NVRM
  std::string process;     // "pid 1896, python3" of the first Xid line
  int boot = 0;            // 0: this boot, -1: the previous one
  std::size_t count = 0;
  std::string first_time, last_time; // as the log prints them
  bool boot_relative = false;        // the times are seconds since boot
  std::string first_line, last_line; // the lines (at most 300 characters each), for evidence
};

struct KernelLogFacts {
  bool read = false;          // this boot's messages were read
  std::string source;         // "cmd dmesg"
  std::string reader;         // "dmesg" or "journalctl"
  std::string why_not;        // why not, and how to get the log
  bool previous_read = false; // the previous boot's messages (journal-kernel-previous) were read
  bool truncated = false;     // longer than what was kept: the last 4 MiB
  std::size_t records = 0;    // messages read, both boots
  std::vector<KernelEvent> events;
  std::size_t events_dropped = 0; // groups over the cap
};

// An NVSwitch PCI function (NVIDIA, class 0x0680, a device id of knowledge nvswitch_devices).
struct NvSwitchFunction {
  std::string bdf;
  unsigned device_id = 0;
  std::string name;
  int generation = 0;
  Fact<std::string> driver; // bound kernel driver (nvidia-nvswitch is part of nvidia.ko)
};

struct FabricFacts {
  std::vector<NvSwitchFunction> nvswitches;
  Fact<std::string> manager_package, manager_version; // nvidia-fabricmanager[-<branch>] from dpkg/rpm
  Fact<std::string> subnet_manager_version;           // nvlsm
  bool service_checked = false;                       // systemctl-fabricmanager ran
  Fact<std::string> service_state;                    // "active", "inactive", "failed", ...
};

// The amdgpu firmware folder, listed when the kernel log names a firmware file amdgpu could not load.
struct FirmwareListing {
  bool listed = false;
  std::string dir; // /lib/firmware/amdgpu
  std::vector<std::string> files;
};

} // namespace gpudoctor
