// Lookups in the environment-variable knowledge (knowledge_env.hpp).
#include "knowledge/knowledge_env.hpp"

#include "util/find_row.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// Names within `max_distance` edits of `name`, nearest first (ties in table order).
template <class Rows, class Key>
std::vector<std::string> closest(const Rows& rows, std::string_view name, std::size_t max_distance, Key key) {
  std::vector<std::pair<std::size_t, std::string>> found;
  for (const auto& row : rows) {
    std::string candidate = key(row);
    if (candidate.empty() || candidate == name) continue;
    std::size_t d = text::edit_distance(name, candidate);
    if (d <= max_distance) found.emplace_back(d, candidate);
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [d, n] : found)
    out.push_back(std::move(n));
  return out;
}

} // namespace

const NcclVarRow* EnvKnowledge::nccl_var(std::string_view name) const {
  return find_row(nccl_vars, name, &NcclVarRow::name);
}

const NcclPrefixRow* EnvKnowledge::nccl_prefix(std::string_view name) const {
  for (const auto& row : nccl_prefixes)
    if (name.size() > row.prefix.size() && text::starts_with(name, row.prefix)) return &row;
  return nullptr;
}

const NcclForeignRow* EnvKnowledge::nccl_foreign_name(std::string_view name) const {
  return find_row(nccl_foreign, name, &NcclForeignRow::name);
}

std::vector<std::string> EnvKnowledge::nccl_closest(std::string_view name, std::size_t max_distance) const {
  return closest(nccl_vars, name, max_distance,
                 [](const NcclVarRow& r) { return r.removed.empty() ? r.name : std::string(); });
}

const AllocOptionRow* EnvKnowledge::alloc_option(std::string_view option) const {
  return find_row(alloc_options, option, &AllocOptionRow::option);
}

std::vector<std::string> EnvKnowledge::alloc_closest(std::string_view option,
                                                     std::size_t max_distance) const {
  return closest(alloc_options, option, max_distance, [](const AllocOptionRow& r) { return r.option; });
}

const DeviceSelectionRow* EnvKnowledge::device_selection_var(std::string_view name) const {
  return find_row(device_selection, name, &DeviceSelectionRow::name);
}

const VendorVariableRow* EnvKnowledge::vendor_variable(std::string_view name) const {
  for (const auto& row : vendor_variables)
    if (name == row.name || (row.prefix && name.starts_with(row.name))) return &row;
  return nullptr;
}

} // namespace gpudoctor
