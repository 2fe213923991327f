// fabric.manager: an NVSwitch system needs NVIDIA's Fabric Manager of the driver's exact version, running,
// and on 4th-generation NVSwitch systems (HGX B200) the NVLink Subnet Manager too (Fabric Manager guide);
// until the fabric is trained, CUDA fails with error 802 "system not yet initialized".
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <map>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool fabric_state_reported(const NvidiaGpuHealth& h) {
  return h.fabric_state && *h.fabric_state != "N/A" && *h.fabric_state != "Not Supported";
}

// The GPU families of this machine that need the NVLink Subnet Manager beside the Fabric Manager.
const SubnetManagerRow* subnet_manager_needed(const CheckContext& ctx) {
  for (const auto& gpu : ctx.facts.gpus)
    if (gpu.vendor == Vendor::nvidia && gpu.model)
      if (const auto* row = ctx.kb.health.subnet_manager(gpu.model->family)) return row;
  return nullptr;
}

} // namespace

void fabric_manager(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const FabricFacts& fab = f.fabric;
  std::vector<const NvidiaSmiGpu*> in_fabric;
  for (const auto& g : f.nvidia.smi_gpus)
    if (fabric_state_reported(g.health)) in_fabric.push_back(&g);
  if (fab.nvswitches.empty() && in_fabric.empty())
    return out.skip("", "no NVSwitch: GPUs reach each other without a fabric to set up");

  std::vector<std::string> evidence, problems;
  for (const auto& s : fab.nvswitches)
    evidence.push_back(
        fmt::format("{}: {} (NVSwitch generation {})", paths::pci_device(s.bdf), s.name, s.generation));
  const std::string smi = smi_source(f);
  std::map<std::string, std::size_t> not_ready; // "state" (status) -> GPUs
  for (const auto* g : in_fabric) {
    const auto& h = g->health;
    std::string status = h.fabric_status.value_or("N/A");
    evidence.push_back(
        fmt::format("{}: GPU {} fabric state {}, status {}", smi, g->bus_id, *h.fabric_state, status));
    if (*h.fabric_state != "Completed" || (status != "Success" && status != "N/A"))
      ++not_ready[fmt::format("\"{}\" (status {})", *h.fabric_state, status)];
  }
  for (const auto& [state, n] : not_ready)
    problems.push_back(
        fmt::format("{} of {} GPUs report the fabric state {}, not Completed", n, in_fabric.size(), state));
  if (!f.os.in_container) {
    auto driver = nvidia_driver_version(f);
    if (!fab.manager_package) {
      problems.push_back("the nvidia-fabricmanager package is not installed");
      evidence.push_back(fmt::format("{}: no nvidia-fabricmanager package", f.packages.source));
    } else {
      evidence.push_back(
          fmt::format("{}: {} {}", fab.manager_package.source, *fab.manager_package, *fab.manager_version));
      if (driver && text::compare_versions(*fab.manager_version, *driver->value) != 0) {
        evidence.push_back(fmt::format("{}: driver {}", driver->source, *driver->value));
        problems.push_back(
            fmt::format("the Fabric Manager is {} but the driver is {}: it refuses to start unless "
                        "both are the same version",
                        *fab.manager_version, *driver->value));
      }
    }
    if (fab.service_state) {
      evidence.push_back(fmt::format("cmd systemctl-fabricmanager: {}", *fab.service_state));
      if (*fab.service_state != "active")
        problems.push_back(fmt::format("the nvidia-fabricmanager service is {}", *fab.service_state));
    }
    if (const auto* sm = subnet_manager_needed(ctx)) {
      evidence.push_back(
          fmt::format("knowledge nvlink_subnet_manager {}: {}; {}", sm->family, sm->package, sm->source));
      if (!fab.subnet_manager_version)
        problems.push_back(fmt::format("{} GPUs sit on 4th-generation NVSwitches, which also need the NVLink "
                                       "Subnet Manager ({}), and it is not installed",
                                       sm->family, sm->package));
    }
  }
  if (problems.empty())
    return out.pass("", "the Fabric Manager matches the driver and the NVLink fabric is trained", evidence);
  out.add(Status::error, "",
          fmt::format(
              "This is an NVSwitch system and its NVLink fabric is not up: {}. Until it is, CUDA fails "
              "with error 802 (\"system not yet initialized\"). Install nvidia-fabricmanager of exactly the "
              "driver's version{}, enable and start it (systemctl enable --now nvidia-fabricmanager).",
              text::join(problems, "; "), subnet_manager_needed(ctx) ? " and the NVLink Subnet Manager" : ""),
          evidence);
}

} // namespace gpudoctor::checks
