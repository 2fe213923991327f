#include "facts/inventory_json.hpp"

namespace gpudoctor {

namespace {

// container_edits is kept flat in StackInventory (file, before, after, repeated: the recipe's parameter);
// the report names the three parts.
Json container_edits_json(const std::vector<std::string>& flat) {
  Json edits = Json::array();
  for (std::size_t i = 0; i + 2 < flat.size(); i += 3)
    edits.push_back({{"file", flat[i]}, {"before_base64", flat[i + 1]}, {"after_base64", flat[i + 2]}});
  return edits;
}

Json stack_json(const StackInventory& s) {
  Json kept = Json::array();
  for (const auto& [package, needed_by] : s.kept)
    kept.push_back({{"package", package}, {"needed_by", needed_by}});
  Json distribution_kept = Json::array();
  for (const auto& [package, needed_by] : s.distribution_kept)
    distribution_kept.push_back({{"package", package}, {"needed_by", needed_by}});
  return {{"packages", s.packages},
          {"distribution", s.distribution},
          {"distribution_kept", distribution_kept},
          {"held", s.held},
          {"kept", kept},
          {"replacements", s.replacements},
          {"orphans", s.orphans},
          {"versionlocks", s.versionlocks},
          {"config_packages", s.config_packages},
          {"dkms", s.dkms},
          {"trees", s.trees},
          {"alternatives", s.alternatives},
          {"sources", s.sources},
          {"source_edits", s.source_edits},
          {"hosts", s.hosts},
          {"keyrings", s.keyrings},
          {"pins", s.pins},
          {"ld_conf", s.ld_conf},
          {"modprobe", s.modprobe},
          {"icd", s.icd},
          {"container_edits", container_edits_json(s.container_edits)},
          {"cdi", s.cdi},
          {"user_caches", s.user_caches},
          {"notes", s.notes}};
}

} // namespace

Json inventory_to_json(const Inventory& inventory) {
  Json assignments = Json::array();
  for (const auto& a : inventory.system_assignments)
    assignments.push_back({{"file", a.file}, {"name", a.name}});
  Json pins = Json::array();
  for (const auto& p : inventory.apt_pins)
    pins.push_back({{"file", p.file}, {"packages", p.packages}, {"pin", p.pin}, {"priority", p.priority}});
  return {{"amd", stack_json(inventory.amd)},
          {"nvidia", stack_json(inventory.nvidia)},
          {"homes", inventory.homes},
          {"system_assignments", assignments},
          {"apt_pins", pins}};
}

} // namespace gpudoctor
