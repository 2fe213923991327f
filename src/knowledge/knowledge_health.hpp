// Knowledge about what breaks after the install: NVIDIA's Xid catalogue (checks/knowledge/xid.yaml), which
// NVIDIA kernel-module flavour each GPU architecture needs, NVSwitch devices and the NVLink Subnet Manager,
// and the packages that carry GPU firmware per distribution (health.yaml). Part of Knowledge as
// `Knowledge::health`; the module-flavour table also serves the migration's choice of flavour
// (module_flavour()).
#pragma once

#include "facts/gpu_facts.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

// One code of NVIDIA's Xid catalogue.
struct XidRow {
  int code = 0;
  std::string mnemonic, description;
  std::string resolution; // the catalogue's immediate action: RESTART_APP, RESET_GPU, RESTART_BM, ...; "none"
  std::string investigation; // the catalogue's investigatory action; may be empty
  std::string category;      // application, memory, nvlink, gsp-firmware, bus, power, board, driver, unused
  std::string status;        // info, warn, error: what kernel.xid reports for it
  bool after_repair = false; // a reset activates a memory repair: info once nvidia-smi shows nothing pending
  std::string advice;        // words a user acts on; empty: the resolution's
  std::string source;
};

struct XidResolutionRow {
  std::string resolution, advice, source;
};

// Whether the NVIDIA kernel-module flavours drive a GPU family (or one model of it).
struct ModuleFlavourRow {
  std::string family;      // "Blackwell", as gpus.yaml names it
  std::string model;       // a model-name fragment ("GH200") for a row narrower than its family; may be empty
  std::string open;        // "required", "supported", "unsupported"
  std::string proprietary; // "supported", "unsupported"
  std::string source;
  bool uncertain = false;
};

struct NvSwitchRow {
  unsigned device_id = 0; // PCI device id (vendor 0x10de, class 0x0680)
  std::string name;
  int generation = 0;
  std::string source;
};

// NVSwitch systems of these GPU families have 4th-generation NVSwitches: the Fabric Manager needs the NVLink
// Subnet Manager beside it.
struct SubnetManagerRow {
  std::string family, package, source;
};

// A package that carries a GPU vendor's firmware files on an OS.
struct FirmwarePackageRow {
  std::string vendor; // "amd", "nvidia"
  std::string os;     // os-release ID (ID_LIKE matches too)
  std::string package, note, source;
  bool uncertain = false;
};

// A kernel-log line by which the kernel refused to load a module for its signature (driver.secure-boot).
struct ModuleRefusalRow {
  std::string line;    // text the message contains; the lines name no module
  std::string meaning; // why the kernel refused, for the message (no final period)
  std::string source;
};

struct HealthKnowledge {
  std::vector<XidRow> xids;
  std::vector<XidResolutionRow> xid_resolutions;
  std::vector<ModuleFlavourRow> module_flavours;
  std::vector<NvSwitchRow> nvswitches;
  std::vector<SubnetManagerRow> subnet_managers;
  std::vector<FirmwarePackageRow> firmware_packages;
  std::vector<ModuleRefusalRow> module_refusals;

  const XidRow* xid(int code) const;
  // The row whose line `message` contains; null when it is no refusal for a signature.
  const ModuleRefusalRow* module_refusal(std::string_view message) const;
  // The row's own advice, else its resolution's; empty when neither is known.
  std::string xid_advice(const XidRow& row) const;
  // The flavour row of a GPU model: a row naming the model wins over its family's; null when unknown.
  const ModuleFlavourRow* module_flavour(const GpuModel& model) const;
  const NvSwitchRow* nvswitch(unsigned device_id) const;
  const SubnetManagerRow* subnet_manager(const std::string& family) const;
  // The rows for a vendor's firmware on an OS: its os-release ID first, then each ID_LIKE.
  std::vector<const FirmwarePackageRow*> firmware_packages_for(const std::string& vendor,
                                                               const std::string& os_id,
                                                               const std::vector<std::string>& id_like) const;
};

} // namespace gpudoctor
