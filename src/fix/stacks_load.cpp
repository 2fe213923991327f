#include "fix/stacks.hpp"
#include "fix/yaml_fields.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>

namespace gpudoctor::fix {

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
  for (const auto& v : vendors)
    if (v.vendor == name) return &v;
  return nullptr;
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

namespace {

class Reader {
public:
  explicit Reader(std::string rel) : m_rel(std::move(rel)) {}
  Stacks stacks;

  void read(const YAML::Node& doc) {
    Fields top(m_rel, doc,
               {"sources", "vendors", "cuda_installs", "cuda_arch_first", "cuda_major_min_arch",
                "nvidia_repo_dirs", "rocm_installs", "amd_apt_codenames", "repo_keys", "replacements",
                "device_selection_vars", "nvidia_branch_kinds", "container_paths"});
    const YAML::Node sources = doc["sources"];
    if (!sources.IsMap()) top.fail(doc, "\"sources\" must map keys to citations");
    for (const auto& kv : sources)
      m_sources.insert(kv.first.Scalar());
    for (const auto& n : rows(top, "vendors"))
      vendor(n);
    for (const auto& n : rows(top, "cuda_installs")) {
      Fields f = row(n, {"cuda", "torch_index", "recommended"});
      stacks.cuda_installs.push_back({f.text("cuda"), f.text("torch_index"), f.flag("recommended")});
    }
    for (const auto& n : rows(top, "cuda_arch_first")) {
      Fields f = row(n, {"arch", "first_cuda"});
      stacks.cuda_arch_first.push_back({sm(f, "arch"), f.text("first_cuda")});
    }
    for (const auto& n : rows(top, "cuda_major_min_arch")) {
      Fields f = row(n, {"cuda_major", "min_arch"});
      auto major = text::to_int(f.text("cuda_major"));
      if (!major) f.fail(n["cuda_major"], "cuda_major must be a number");
      stacks.cuda_major_min_arch.push_back({static_cast<int>(*major), sm(f, "min_arch")});
    }
    for (const auto& n : rows(top, "nvidia_repo_dirs"))
      stacks.nvidia_repo_dirs.push_back(os_value(n, "dir"));
    for (const auto& n : rows(top, "amd_apt_codenames"))
      stacks.amd_apt_codenames.push_back(os_value(n, "codename"));
    for (const auto& n : rows(top, "rocm_installs")) {
      Fields f = row(
          n, {"rocm", "apt_dir", "amdgpu_dir", "graphics_dir", "torch_index", "recommended", "uncertain"});
      stacks.rocm_installs.push_back({f.text("rocm"), f.text("apt_dir"), f.text("amdgpu_dir"),
                                      f.text_or("graphics_dir", ""), f.text("torch_index"),
                                      f.flag("recommended"), f.flag("uncertain")});
    }
    for (const auto& n : rows(top, "repo_keys")) {
      Fields f = row(n, {"vendor", "family", "url", "uncertain"});
      stacks.repo_keys.push_back({f.text("vendor"), f.text("family"), f.text("url"), f.flag("uncertain")});
    }
    for (const auto& n : rows(top, "replacements")) {
      Fields f = row(n, {"vendor", "family", "package", "distribution", "uncertain"});
      stacks.replacements.push_back({f.text("vendor"), f.text("family"), f.text("package"),
                                     f.text("distribution"), f.flag("uncertain")});
    }
    for (const auto& n : rows(top, "nvidia_branch_kinds")) {
      Fields f = row(n, {"branch", "kind"});
      auto branch = text::to_int(f.text("branch"));
      std::string kind = f.text("kind");
      if (!branch) f.fail(n["branch"], "branch must be a number");
      if (kind != "production" && kind != "long-term support")
        f.fail(n["kind"], "kind is production or long-term support");
      stacks.nvidia_branch_kinds.push_back({static_cast<int>(*branch), kind});
    }
    for (const auto& n : rows(top, "container_paths")) {
      Fields f = row(n, {"vendor", "image", "run_flags", "cdi"});
      stacks.container_paths.push_back(
          {f.text("vendor"), f.text("image"), f.text("run_flags"), f.text_or("cdi", "")});
    }
    Fields dsv = row(doc["device_selection_vars"], {"vars"});
    stacks.device_selection_vars = dsv.text("vars");
  }

private:
  std::string m_rel;
  std::set<std::string> m_sources;

  YAML::Node rows(const Fields& top, const char* table) {
    const YAML::Node list = top.node()[table];
    if (!list.IsSequence()) top.fail(top.node(), std::string("\"") + table + "\" must be a list of rows");
    return list;
  }

  // A row: its fields plus "source", one key or a list of keys of the sources map (as in checks/knowledge/).
  Fields row(const YAML::Node& n, std::vector<std::string> fields) {
    fields.push_back("source");
    Fields f(m_rel, n, fields);
    std::vector<std::string> keys = f.list("source");
    if (keys.empty()) f.fail(n, "missing \"source\"");
    for (const auto& k : keys)
      if (!m_sources.count(k)) f.fail(n["source"], "source key " + k + " is not in the sources map");
    return f;
  }

  int sm(const Fields& f, const char* key) {
    auto v = sm_number(f.text(key));
    if (!v) f.fail(f.node()[key], std::string(key) + " must be sm_NN");
    return *v;
  }

  OsValue os_value(const YAML::Node& n, const char* key) {
    Fields f = row(n, {"os", key, "uncertain"});
    return {f.text("os"), f.text(key), f.flag("uncertain")};
  }

  void vendor(const YAML::Node& n) {
    Fields f = row(n, {"vendor", "packages", "keep", "core", "profile_vars", "profile_paths", "dkms",
                       "keyrings", "modprobe_modules", "icd", "alternatives", "groups", "services",
                       "device_nodes", "user_caches", "wheels"});
    VendorStack v{
        f.text("vendor"),        f.list("packages"),     f.list("keep"),     f.text("profile_vars"),
        f.text("profile_paths"), f.list("dkms"),         f.list("keyrings"), f.list("modprobe_modules"),
        f.list("icd"),           f.list("alternatives"), f.list("groups")};
    v.core = f.list("core");
    v.services = f.list("services");
    v.device_nodes = f.text("device_nodes");
    v.user_caches = f.list("user_caches");
    for (const auto& c : v.user_caches)
      if (c.empty() || c.front() == '/' || text::contains(c, ".."))
        f.fail(n["user_caches"], "user_caches are folders below a home: relative, without ..");
    v.wheels = f.list("wheels");
    stacks.vendors.push_back(std::move(v));
  }
};

} // namespace

std::expected<Stacks, std::string> load_stacks(const std::string& source_dir) {
  const std::string rel = "fixes/stacks.yaml";
  try {
    Reader reader(rel);
    reader.read(parse_yaml(rel, read_data_file(source_dir, rel)));
    return std::move(reader.stacks);
  } catch (const DataError& e) {
    return std::unexpected(e.message);
  } catch (const YAML::Exception& e) {
    return std::unexpected(rel + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

} // namespace gpudoctor::fix
