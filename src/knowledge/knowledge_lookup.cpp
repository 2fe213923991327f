// Lookups over the loaded knowledge tables. Pure functions of the tables; none throws.
#include "knowledge/gpu_table.hpp"
#include "knowledge/knowledge.hpp"
#include "util/package_version.hpp"
#include "util/text.hpp"
#include "util/url_text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// How well a row fits the device: one point per board-specific id that matches; empty when a row names an id
// that differs.
std::optional<int> fit(std::optional<unsigned> row_revision, std::optional<unsigned> row_subsys_device,
                       std::optional<unsigned> row_subsys_vendor, std::optional<unsigned> revision,
                       std::optional<unsigned> subsystem_device, std::optional<unsigned> subsystem_vendor) {
  int score = 0;
  if (row_revision) {
    if (revision != row_revision) return std::nullopt;
    ++score;
  }
  if (row_subsys_device) {
    if (subsystem_device != row_subsys_device) return std::nullopt;
    ++score;
  }
  if (row_subsys_vendor) {
    if (subsystem_vendor != row_subsys_vendor) return std::nullopt;
    ++score;
  }
  return score;
}

std::optional<unsigned> id_of(int v) {
  if (v < 0) return std::nullopt;
  return static_cast<unsigned>(v);
}

GpuRow row_of(const GpuTableRow& t) {
  GpuRow g;
  g.vendor_id = t.vendor;
  g.device_id = t.device;
  g.revision = id_of(t.revision);
  g.subsystem_device = id_of(t.subsystem_device);
  g.subsystem_vendor = id_of(t.subsystem_vendor);
  g.model.name = t.name;
  g.model.arch = t.arch;
  g.model.family = t.family;
  if (t.gfx_target_version > 0) g.model.gfx_target_version = t.gfx_target_version;
  if (t.vram_gib > 0) g.model.vram_bytes = static_cast<std::uint64_t>(t.vram_gib) << 30;
  g.model.source = "gpu table: " + text::join(text::split(t.source, ' '), ", ");
  g.model.uncertain = t.uncertain;
  return g;
}

// The compiled-in table: the rows of one vendor and device are adjacent (sorted), found by binary search.
std::optional<GpuRow> find_builtin(unsigned vendor_id, unsigned device_id, std::optional<unsigned> revision,
                                   std::optional<unsigned> subsystem_device,
                                   std::optional<unsigned> subsystem_vendor) {
  auto rows = builtin_gpu_rows();
  auto key = std::pair(vendor_id, device_id);
  auto first = std::lower_bound(rows.begin(), rows.end(), key, [](const GpuTableRow& r, const auto& k) {
    return std::pair<unsigned, unsigned>(r.vendor, r.device) < k;
  });
  const GpuTableRow* best = nullptr;
  int best_score = -1;
  for (auto it = first; it != rows.end() && it->vendor == vendor_id && it->device == device_id; ++it) {
    auto score = fit(id_of(it->revision), id_of(it->subsystem_device), id_of(it->subsystem_vendor), revision,
                     subsystem_device, subsystem_vendor);
    if (score && *score > best_score) {
      best = &*it;
      best_score = *score;
    }
  }
  if (!best) return std::nullopt;
  return row_of(*best);
}

} // namespace

std::optional<GpuRow> Knowledge::find_gpu_row(unsigned vendor_id, unsigned device_id,
                                              std::optional<unsigned> revision,
                                              std::optional<unsigned> subsystem_device,
                                              std::optional<unsigned> subsystem_vendor) const {
  const GpuRow* best = nullptr;
  int best_score = -1;
  for (const auto& row : gpus) {
    if (row.vendor_id != vendor_id || row.device_id != device_id) continue;
    auto score = fit(row.revision, row.subsystem_device, row.subsystem_vendor, revision, subsystem_device,
                     subsystem_vendor);
    if (score && *score > best_score) {
      best = &row;
      best_score = *score;
    }
  }
  if (best) return *best;
  return find_builtin(vendor_id, device_id, revision, subsystem_device, subsystem_vendor);
}

std::optional<GpuModel> Knowledge::find_gpu(unsigned vendor_id, unsigned device_id,
                                            std::optional<unsigned> revision,
                                            std::optional<unsigned> subsystem_device,
                                            std::optional<unsigned> subsystem_vendor) const {
  auto row = find_gpu_row(vendor_id, device_id, revision, subsystem_device, subsystem_vendor);
  if (!row) return std::nullopt;
  return row->model;
}

std::optional<CudaDriverRow> Knowledge::min_driver_for_cuda(const std::string& cuda_version) const {
  // "12.4.1" is Update 1 of 12.4; "13.0.88" (a component's version) and "12.4.0" fall back to the GA row.
  std::string three = text::version_prefix(cuda_version, 3), two = text::version_prefix(cuda_version, 2);
  if (two.find('.') == std::string::npos) return std::nullopt;
  for (const auto& want : {three, two})
    for (const auto& row : cuda_drivers)
      if (row.cuda == want) return row;
  return std::nullopt;
}

std::optional<CudaFamilyRow> Knowledge::cuda_family(int major) const {
  for (const auto& row : cuda_families)
    if (row.major == major) return row;
  return std::nullopt;
}

std::optional<bool> Knowledge::driver_runs_cuda(const std::string& driver,
                                                const std::string& cuda_version) const {
  if (text::version_prefix(driver, 1).empty()) return std::nullopt;
  auto release = min_driver_for_cuda(cuda_version);
  // A driver at or above the release's own minimum runs it (newer drivers always run older toolkits).
  if (release && text::compare_versions(driver, release->min_driver) >= 0) return true;
  // Minor-version compatibility: any driver from the family's minimum on runs every minor release of that
  // major (drivers from below_branch on are newer than the family and run it by backward compatibility).
  auto major = text::to_int(text::version_prefix(cuda_version, 1));
  auto family = major ? cuda_family(static_cast<int>(*major)) : std::nullopt;
  if (family) return text::compare_versions(driver, family->min_driver) >= 0;
  if (release) return false; // below the release's minimum and no compatibility range for its major
  return std::nullopt;
}

std::optional<DriverBranchRow> Knowledge::driver_branch(const std::string& driver) const {
  auto branch = text::to_int(text::version_prefix(driver, 1));
  if (!branch) return std::nullopt;
  for (const auto& row : driver_branches)
    if (row.branch == *branch) return row;
  return std::nullopt;
}

std::optional<GfxRow> Knowledge::find_gfx(long long gfx_target_version) const {
  for (const auto& row : gfx_targets)
    if (row.gfx_target_version == gfx_target_version) return row;
  return std::nullopt;
}

std::optional<std::string> Knowledge::isa_family(long long gfx_target_version) const {
  if (gfx_target_version <= 0) return std::nullopt;
  if (auto row = find_gfx(gfx_target_version)) return row->family;
  // The family every row within `divisor` of the version shares, if they agree.
  auto shared = [&](long long divisor) -> std::optional<std::string> {
    std::optional<std::string> family;
    for (const auto& row : gfx_targets) {
      if (row.gfx_target_version / divisor != gfx_target_version / divisor) continue;
      if (family && *family != row.family) return std::nullopt;
      family = row.family;
    }
    return family;
  };
  if (auto family = shared(100)) return family;
  return shared(10000);
}

std::optional<GfxRow> Knowledge::find_gfx_target(const std::string& target) const {
  std::string name = text::lower(text::trim(target.substr(0, target.find(':'))));
  for (const auto& row : gfx_targets)
    if (row.target == name) return row;
  return std::nullopt;
}

bool Knowledge::is_gpu_env_var(const std::string& name) const {
  for (const auto& n : gpu_env_names)
    if (n == name) return true;
  for (const auto& p : gpu_env_prefixes)
    if (text::starts_with(name, p)) return true;
  return false;
}

namespace {

// Whether the dotted components of `prefix` are the first components of `version` ("9" starts "9.4").
bool version_starts_with(const std::string& version, const std::string& prefix) {
  auto v = text::split(version, '.', true), p = text::split(prefix, '.', true);
  if (p.empty() || p.size() > v.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    auto a = text::to_int(v[i]), b = text::to_int(p[i]);
    if (!a || !b || *a != *b) return false;
  }
  return true;
}

} // namespace

std::optional<RocmReleaseRow> Knowledge::rocm_release(const std::string& version) const {
  const RocmReleaseRow* best = nullptr;
  for (const auto& row : rocm_releases)
    if (version_starts_with(version, row.rocm) && (!best || row.rocm.size() > best->rocm.size())) best = &row;
  if (!best) return std::nullopt;
  return *best;
}

bool Knowledge::os_entry_matches(const std::string& entry, const std::string& id,
                                 const std::string& version_id) {
  auto parts = text::split(entry, ' ');
  return parts.size() == 2 && parts[0] == text::lower(id) && version_starts_with(version_id, parts[1]);
}

bool Knowledge::rocm_supports_os(const RocmReleaseRow& row, const std::string& id,
                                 const std::string& version_id) {
  return std::ranges::any_of(
      row.os, [&](const std::string& entry) { return os_entry_matches(entry, id, version_id); });
}

std::optional<DistroReleaseRow> Knowledge::distro_by_codename(const std::string& id,
                                                              const std::string& codename) const {
  for (const auto& row : distro_releases)
    if (row.id == id && row.codename == text::lower(codename)) return row;
  return std::nullopt;
}

std::optional<DistroReleaseRow> Knowledge::distro_by_version(const std::string& id,
                                                             const std::string& version) const {
  for (const auto& row : distro_releases)
    if (row.id == id && version_starts_with(version, row.version) &&
        version_starts_with(row.version, version))
      return row;
  return std::nullopt;
}

std::optional<VendorRepoRow> Knowledge::vendor_repo(const std::string& url) const {
  std::string host = url_host(url);
  for (const auto& row : vendor_repos)
    if (host == row.host || text::ends_with(host, "." + row.host)) return row;
  return std::nullopt;
}

const ModuleSigningRow* Knowledge::module_signing_for(const std::string& builder, const std::string& version,
                                                      const std::string& id,
                                                      const std::vector<std::string>& id_like) const {
  std::string_view upstream = upstream_version(version);
  std::string distribution = dkms_distribution(id, id_like);
  for (const auto& row : module_signing) {
    if (row.builder != builder || !text::glob_match(row.distribution, distribution)) continue;
    // An unknown version is the newest: rows with an upper bound are older builders'.
    if (upstream.empty() ? !row.before.empty()
                         : (!row.since.empty() && dpkg_version_compare(upstream, row.since) < 0) ||
                               (!row.before.empty() && dpkg_version_compare(upstream, row.before) >= 0))
      continue;
    return &row;
  }
  return nullptr;
}

std::string Knowledge::dkms_distribution(const std::string& id, const std::vector<std::string>& id_like) {
  if (id == "ubuntu" || id_like.empty()) return id;
  return text::join(id_like, " ");
}

} // namespace gpudoctor
