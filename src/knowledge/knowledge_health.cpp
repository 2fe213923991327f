// Lookups in the after-the-install knowledge (knowledge_health.hpp). Pure functions of the tables.
#include "knowledge/knowledge_health.hpp"

#include "util/find_row.hpp"
#include "util/text.hpp"

namespace gpudoctor {

const XidRow* HealthKnowledge::xid(int code) const {
  return find_row(xids, code, &XidRow::code);
}

const ModuleRefusalRow* HealthKnowledge::module_refusal(std::string_view message) const {
  for (const auto& r : module_refusals)
    if (message.find(r.line) != std::string_view::npos) return &r;
  return nullptr;
}

std::string HealthKnowledge::xid_advice(const XidRow& row) const {
  if (!row.advice.empty()) return row.advice;
  for (const auto& r : xid_resolutions)
    if (r.resolution == row.resolution) return r.advice;
  return {};
}

const ModuleFlavourRow* HealthKnowledge::module_flavour(const GpuModel& model) const {
  const ModuleFlavourRow* family = nullptr;
  for (const auto& row : module_flavours) {
    if (row.family != model.family) continue;
    if (!row.model.empty()) {
      if (text::contains(model.name, row.model)) return &row;
      continue;
    }
    family = &row;
  }
  return family;
}

const NvSwitchRow* HealthKnowledge::nvswitch(unsigned device_id) const {
  return find_row(nvswitches, device_id, &NvSwitchRow::device_id);
}

const SubnetManagerRow* HealthKnowledge::subnet_manager(const std::string& family) const {
  return find_row(subnet_managers, family, &SubnetManagerRow::family);
}

std::vector<const FirmwarePackageRow*>
HealthKnowledge::firmware_packages_for(const std::string& vendor, const std::string& os_id,
                                       const std::vector<std::string>& id_like) const {
  std::vector<std::string> ids = {os_id};
  ids.insert(ids.end(), id_like.begin(), id_like.end());
  for (const auto& id : ids) {
    std::vector<const FirmwarePackageRow*> out;
    for (const auto& row : firmware_packages)
      if (row.vendor == vendor && row.os == id) out.push_back(&row);
    if (!out.empty()) return out;
  }
  return {};
}

} // namespace gpudoctor
