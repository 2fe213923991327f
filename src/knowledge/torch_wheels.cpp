// The arch rule and the lookups over the PyTorch wheel table. Pure functions; none throws.
#include "knowledge/knowledge.hpp"
#include "util/find_row.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// "89" -> (8, 9), "120" -> (12, 0): the last digit is the minor version.
std::optional<std::pair<int, int>> capability(const std::string& digits) {
  if (digits.size() < 2 || digits.size() > 4) return std::nullopt;
  auto major = text::to_int(digits.substr(0, digits.size() - 1)),
       minor = text::to_int(digits.substr(digits.size() - 1));
  if (!major || !minor || *major < 0 || *minor < 0) return std::nullopt;
  return std::pair<int, int>{static_cast<int>(*major), static_cast<int>(*minor)};
}

std::string gfx_of(const std::string& target) {
  return text::lower(text::trim(target.substr(0, target.find(':'))));
}

} // namespace

namespace arch_rule {

bool entry_runs_on(const std::string& entry, const std::string& gpu_arch) {
  if (text::starts_with(gpu_arch, "gfx")) return gfx_of(entry) == gfx_of(gpu_arch);
  if (!text::starts_with(gpu_arch, "sm_")) return false;
  auto gpu = capability(gpu_arch.substr(3));
  if (!gpu) return false;
  bool ptx = text::starts_with(entry, "compute_");
  if (!ptx && !text::starts_with(entry, "sm_")) return false;
  std::string digits = entry.substr(ptx ? 8 : 3);
  // sm_90a: code for that GPU only; sm_100f: for that family (the same major), as plain code.
  bool specific = !digits.empty() && digits.back() == 'a';
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
  auto cc = capability(digits);
  if (!cc) return false;
  if (specific) return *cc == *gpu;
  if (ptx) return *cc <= *gpu;
  return cc->first == gpu->first && cc->second <= gpu->second;
}

bool list_runs_on(const std::vector<std::string>& arches, const std::string& gpu_arch) {
  return std::ranges::any_of(arches, [&](const std::string& e) { return entry_runs_on(e, gpu_arch); });
}

} // namespace arch_rule

const TorchWheelRow* Knowledge::torch_wheel(const std::string& torch_version,
                                            const std::string& variant) const {
  std::string release = text::version_prefix(torch_version, 2);
  for (const auto& row : torch_wheels)
    if (row.torch == release && row.variant == variant) return &row;
  return nullptr;
}

std::vector<const TorchWheelRow*> Knowledge::torch_wheels_carrying(const std::string& gpu_arch) const {
  std::vector<const TorchWheelRow*> out;
  for (const auto& row : torch_wheels)
    if (arch_rule::list_runs_on(row.arches, gpu_arch)) out.push_back(&row);
  std::ranges::stable_sort(out, [](const TorchWheelRow* a, const TorchWheelRow* b) {
    return text::compare_versions(a->torch, b->torch) < 0;
  });
  return out;
}

const TorchExtensionRow* Knowledge::torch_extension(const std::string& dist) const {
  return find_row(torch_extensions, dist, &TorchExtensionRow::dist);
}

std::vector<const TorchWheelRow*> Knowledge::newest_torch_wheels() const {
  std::vector<const TorchWheelRow*> out;
  for (const auto& row : torch_wheels) {
    auto same = std::ranges::find_if(out, [&](const TorchWheelRow* r) { return r->variant == row.variant; });
    if (same == out.end())
      out.push_back(&row);
    else if (text::compare_versions(row.torch, (*same)->torch) > 0)
      *same = &row;
  }
  return out;
}

} // namespace gpudoctor
