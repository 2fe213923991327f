// The NVSwitch fabric: NVSwitch PCI functions (knowledge nvswitch_devices), the Fabric Manager and NVLink
// Subnet Manager packages, and the Fabric Manager service (`systemctl-fabricmanager`), asked only on NVSwitch
// systems: where NVSwitch functions exist, or nvidia-smi reports a GPU's fabric state (4th-generation
// NVSwitch systems such as HGX B200 show no switch function to the host).
#include "collect/collectors.hpp"
#include "system/machine_paths.hpp"
#include "system/pci_functions.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

void collect_nvswitches(SystemView& view, const Knowledge& kb, std::vector<NvSwitchFunction>& out) {
  auto devices = view.list_dir(paths::pci_devices);
  if (!devices) return;
  for (const auto& bdf : *devices) {
    const std::string dir = paths::pci_device(bdf);
    auto pci_class = read_pci_hex(view, dir + "/class");
    if (!pci_class || (*pci_class >> 8) != 0x0680) continue; // bridge, other
    if (read_pci_hex(view, dir + "/vendor") != 0x10de) continue;
    auto device = read_pci_hex(view, dir + "/device");
    const NvSwitchRow* row = device ? kb.health.nvswitch(*device) : nullptr;
    if (!row) continue;
    NvSwitchFunction f{bdf, *device, row->name, row->generation, {}};
    if (auto link = view.read_link(dir + "/driver"))
      f.driver = {link->substr(link->find_last_of('/') + 1), dir + "/driver -> " + *link};
    out.push_back(std::move(f));
  }
}

// "550.90.07-1ubuntu1" -> "550.90.07".
std::string upstream(const std::string& version) {
  std::string v = version.substr(version.find(':') == std::string::npos ? 0 : version.find(':') + 1);
  return v.substr(0, v.find('-'));
}

void collect_packages_of(const PackageFacts& packages, FabricFacts& fabric) {
  for (const auto& [name, version] : packages.installed) {
    // Debian/Ubuntu: nvidia-fabricmanager[-<branch>]; NVIDIA's RHEL repository: nvidia-fabric-manager.
    bool manager = name == "nvidia-fabricmanager" || name == "nvidia-fabric-manager" ||
                   (text::starts_with(name, "nvidia-fabricmanager-") && text::to_int(name.substr(21)));
    if (manager && !fabric.manager_package) {
      fabric.manager_package = {name, packages.source};
      fabric.manager_version = {upstream(version), packages.source};
    }
    if (name == "nvlsm") fabric.subnet_manager_version = {upstream(version), packages.source};
  }
}

bool fabric_reported(const NvidiaFacts& nvidia) {
  for (const auto& g : nvidia.smi_gpus)
    if (g.health.fabric_state && *g.health.fabric_state != "N/A" && *g.health.fabric_state != "Not Supported")
      return true;
  return false;
}

} // namespace

void collect_fabric(SystemView& view, const Knowledge& kb, const CollectOptions& opt,
                    const PackageFacts& packages, const NvidiaFacts& nvidia, FabricFacts& fabric,
                    std::vector<ToolRun>& tools) {
  collect_nvswitches(view, kb, fabric.nvswitches);
  if (fabric.nvswitches.empty() && !fabric_reported(nvidia)) return;
  collect_packages_of(packages, fabric);
  CommandSpec spec = keyed_command_spec(KeyedCommand::systemctl_fabricmanager, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  fabric.service_checked = true;
  tools.push_back(tool_run_of(r, spec)); // is-active exits 3 when inactive: an answer, not a failure
  std::string state = text::trim(text::lines(r.out).empty() ? "" : text::lines(r.out).front());
  for (const char* known : {"active", "inactive", "failed", "activating", "deactivating", "reloading"})
    if (state == known) fabric.service_state = {state, "cmd systemctl-fabricmanager"};
}

} // namespace gpudoctor
