#include "knowledge/stacks.hpp"
#include "util/data_files.hpp"
#include "util/find_row.hpp"
#include "util/text.hpp"
#include "util/yaml_doc.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace gpudoctor {

std::optional<int> sm_number(const std::string& arch) {
  if (!text::starts_with(arch, "sm_")) return std::nullopt;
  std::string digits = arch.substr(3);
  while (!digits.empty() && !(digits.back() >= '0' && digits.back() <= '9'))
    digits.pop_back(); // sm_90a
  auto v = text::to_int(digits);
  if (!v || *v <= 0) return std::nullopt;
  return static_cast<int>(*v);
}

bool os_matches(const std::string& pattern, const std::string& id, const std::string& version) {
  auto space = pattern.find(' ');
  if (space == std::string::npos) return pattern == id;
  std::string pid = pattern.substr(0, space), pver = pattern.substr(space + 1);
  return pid == id && (version == pver || text::starts_with(version, pver + "."));
}

const VendorStack* Stacks::vendor(const std::string& name) const {
  return find_row(vendors, name, &VendorStack::vendor);
}

std::optional<OsValue> Stacks::for_os(const std::vector<OsValue>& rows, const std::string& id,
                                      const std::string& version) {
  std::optional<OsValue> best;
  for (const auto& r : rows)
    if (os_matches(r.os, id, version) && (!best || r.os.size() > best->os.size())) best = r;
  return best;
}

std::optional<RepoKey> Stacks::key(const std::string& vendor, const std::string& family) const {
  for (const auto& k : repo_keys)
    if (k.vendor == vendor && k.family == family) return k;
  return std::nullopt;
}

std::string Stacks::package_origin(const std::string& maintainer, const std::string& version) const {
  if (maintainer.empty() && version.empty()) return {};
  std::string m = text::lower(maintainer), v = text::lower(version);
  for (const auto& row : package_origins)
    if ((row.maintainer.empty() || text::glob_match(row.maintainer, m)) &&
        (row.version.empty() || text::glob_match(row.version, v)))
      return row.origin;
  return {};
}

std::string Stacks::repository_origin(const std::string& host) const {
  for (const auto& row : repository_origins)
    if (text::glob_match(row.host, text::lower(host))) return row.origin;
  return {};
}

namespace {

class Reader {
public:
  Stacks stacks;

  void read(const yaml::Node& doc) {
    yaml::Fields top(doc, {"sources", "vendors", "cuda_installs", "cuda_arch_first", "cuda_major_min_arch",
                           "nvidia_repo_dirs", "rocm_installs", "amd_apt_codenames", "repo_keys",
                           "replacements", "device_selection_vars", "nvidia_branch_kinds", "container_paths",
                           "package_origins", "repository_origins"});
    const yaml::Node sources = doc["sources"];
    if (!sources.is_map()) yaml::fail(doc, "field 'sources' must map keys to citations");
    for (const auto& [key, citation] : sources.entries()) {
      if (!citation.is_scalar() || text::trim(citation.scalar()).empty())
        yaml::fail(key, "a source must be 'KEY: citation'");
      m_sources.insert(key.scalar());
    }
    for (const auto& n : rows(top, "vendors"))
      vendor(n);
    for (const auto& n : rows(top, "cuda_installs")) {
      yaml::Fields f = row(n, {"cuda", "torch_index", "recommended"});
      stacks.cuda_installs.push_back({f.text("cuda"), f.text("torch_index"), f.flag("recommended")});
    }
    for (const auto& n : rows(top, "cuda_arch_first")) {
      yaml::Fields f = row(n, {"arch", "first_cuda"});
      stacks.cuda_arch_first.push_back({sm(f, "arch"), f.text("first_cuda")});
    }
    for (const auto& n : rows(top, "cuda_major_min_arch")) {
      yaml::Fields f = row(n, {"cuda_major", "min_arch"});
      auto major = text::to_int(f.text("cuda_major"));
      if (!major) yaml::fail(n["cuda_major"], "cuda_major must be a number");
      stacks.cuda_major_min_arch.push_back({static_cast<int>(*major), sm(f, "min_arch")});
    }
    for (const auto& n : rows(top, "nvidia_repo_dirs"))
      stacks.nvidia_repo_dirs.push_back(os_value(n, "dir"));
    for (const auto& n : rows(top, "amd_apt_codenames"))
      stacks.amd_apt_codenames.push_back(os_value(n, "codename"));
    for (const auto& n : rows(top, "rocm_installs")) {
      yaml::Fields f = row(
          n, {"rocm", "apt_dir", "amdgpu_dir", "graphics_dir", "torch_index", "recommended", "uncertain"});
      stacks.rocm_installs.push_back({f.text("rocm"), f.text("apt_dir"), f.text("amdgpu_dir"),
                                      f.text_or("graphics_dir", ""), f.text("torch_index"),
                                      f.flag("recommended"), f.flag("uncertain")});
    }
    for (const auto& n : rows(top, "repo_keys")) {
      yaml::Fields f = row(n, {"vendor", "family", "url", "uncertain"});
      stacks.repo_keys.push_back({f.text("vendor"), f.text("family"), f.text("url"), f.flag("uncertain")});
    }
    for (const auto& n : rows(top, "replacements")) {
      yaml::Fields f = row(n, {"vendor", "family", "package", "distribution", "uncertain"});
      stacks.replacements.push_back({f.text("vendor"), f.text("family"), f.text("package"),
                                     f.text("distribution"), f.flag("uncertain")});
    }
    for (const auto& n : rows(top, "nvidia_branch_kinds")) {
      yaml::Fields f = row(n, {"branch", "kind"});
      auto branch = text::to_int(f.text("branch"));
      std::string kind = f.text("kind");
      if (!branch) yaml::fail(n["branch"], "branch must be a number");
      if (kind != "production" && kind != "long-term support")
        yaml::fail(n["kind"], "kind is production or long-term support");
      stacks.nvidia_branch_kinds.push_back({static_cast<int>(*branch), kind});
    }
    for (const auto& n : rows(top, "container_paths")) {
      yaml::Fields f = row(n, {"vendor", "image", "run_flags", "cdi"});
      stacks.container_paths.push_back(
          {f.text("vendor"), f.text("image"), f.text("run_flags"), f.text_or("cdi", "")});
    }
    for (const auto& n : rows(top, "package_origins")) {
      yaml::Fields f = row(n, {"maintainer", "version", "origin"});
      std::string origin = f.text("origin");
      if (origin != "distribution" && origin != "nvidia" && origin != "amd")
        yaml::fail(n["origin"], "origin is distribution, nvidia or amd");
      std::string maintainer = text::lower(f.text_or("maintainer", "")),
                  version = text::lower(f.text_or("version", ""));
      if (maintainer.empty() && version.empty())
        yaml::fail(n, "a package origin needs a maintainer or a version");
      stacks.package_origins.push_back({maintainer, version, origin});
    }
    for (const auto& n : rows(top, "repository_origins")) {
      yaml::Fields f = row(n, {"host", "origin"});
      std::string origin = f.text("origin");
      if (origin != "distribution" && origin != "nvidia" && origin != "amd")
        yaml::fail(n["origin"], "origin is distribution, nvidia or amd");
      stacks.repository_origins.push_back({text::lower(f.text("host")), origin});
    }
    yaml::Fields dsv = row(doc["device_selection_vars"], {"vars"});
    stacks.device_selection_vars = dsv.text("vars");
  }

private:
  std::set<std::string> m_sources;

  std::vector<yaml::Node> rows(const yaml::Fields& top, const char* table) {
    const yaml::Node list = top[table];
    if (!list.is_list()) yaml::fail(list, fmt::format("field '{}' must be a list of rows", table));
    return list.items();
  }

  // A row: its fields plus "source", one key or a list of keys of the sources map (as in checks/knowledge/).
  yaml::Fields row(const yaml::Node& n, std::vector<std::string> fields) {
    fields.push_back("source");
    yaml::Fields f(n, fields);
    std::vector<std::string> keys = f.words("source");
    if (keys.empty()) yaml::fail(n, "missing required field 'source'");
    for (const auto& k : keys)
      if (!m_sources.count(k))
        yaml::fail(n["source"], fmt::format("source key '{}' is not in the sources map", k));
    return f;
  }

  int sm(const yaml::Fields& f, const char* key) {
    auto v = sm_number(f.text(key));
    if (!v) f.bad(key, "must be sm_NN");
    return *v;
  }

  OsValue os_value(const yaml::Node& n, const char* key) {
    yaml::Fields f = row(n, {"os", key, "uncertain"});
    return {f.text("os"), f.text(key), f.flag("uncertain")};
  }

  void vendor(const yaml::Node& n) {
    yaml::Fields f = row(n, {"vendor", "packages", "keep", "core", "profile_vars", "profile_paths", "dkms",
                             "keyrings", "modprobe_modules", "icd", "alternatives", "groups", "services",
                             "device_nodes", "user_caches", "wheels"});
    VendorStack v{
        f.text("vendor"),        f.words("packages"),     f.words("keep"),     f.text("profile_vars"),
        f.text("profile_paths"), f.words("dkms"),         f.words("keyrings"), f.words("modprobe_modules"),
        f.words("icd"),          f.words("alternatives"), f.words("groups")};
    v.core = f.words("core");
    v.services = f.words("services");
    v.device_nodes = f.text("device_nodes");
    v.user_caches = f.words("user_caches");
    for (const auto& c : v.user_caches)
      if (c.empty() || c.front() == '/' || text::contains(c, ".."))
        yaml::fail(n["user_caches"], "user_caches are folders below a home: relative, without ..");
    v.wheels = f.words("wheels");
    stacks.vendors.push_back(std::move(v));
  }
};

} // namespace

std::expected<Stacks, std::string> load_stacks(const std::string& source_dir) {
  auto doc = yaml::parse_data_file("fixes", fixes_folder(source_dir), "stacks.yaml");
  if (!doc) return std::unexpected(doc.error());
  return yaml::guarded(doc->file(), [&] {
    Reader reader;
    reader.read(*doc);
    return std::move(reader.stacks);
  });
}

} // namespace gpudoctor
