#include "collect/link_facts.hpp"

#include "parse/parsers.hpp"
#include "parse/parsers_layer.hpp"
#include "parse/parsers_system.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

namespace gpudoctor {

namespace {

// KFD nodes and render nodes to PCI GPUs: a KFD location_id packs bus/device/function as
// (bus << 8) | (device << 3) | function.
void link_kfd_node(const AmdFacts& amd, const Knowledge& kb, Gpu& gpu) {
  auto parts = text::split(gpu.bdf, ':');
  if (parts.size() != 3) return;
  auto domain = text::to_int(parts[0], 16);
  auto bus = text::to_int(parts[1], 16);
  auto devfn = text::split(parts[2], '.');
  if (!domain || !bus || devfn.size() != 2) return;
  auto dev = text::to_int(devfn[0], 16), fn = text::to_int(devfn[1], 16);
  if (!dev || !fn) return;
  long long location = (*bus << 8) | (*dev << 3) | *fn;
  for (const auto& node : amd.kfd_nodes) {
    if (!node.location_id || *node.location_id != location) continue;
    if (node.domain && *node.domain != *domain) continue;
    gpu.kfd = node;
    if (node.drm_render_minor && *node.drm_render_minor > 0)
      gpu.render_node = paths::render_node(*node.drm_render_minor);
    break;
  }
  // The KFD's gfx_target_version is what the runtime sees; it names the ISA even for unknown boards.
  if (gpu.kfd && gpu.kfd->gfx_target_version && *gpu.kfd->gfx_target_version > 0)
    if (auto gfx = kb.find_gfx(*gpu.kfd->gfx_target_version)) gpu.kfd_target = gfx->target;
}

bool nccl_name(const std::string& name) {
  std::string t = text::trim(name);
  return text::starts_with(t, "NCCL_") || text::starts_with(t, "RCCL_");
}

// As NCCL does it, setenv(name, value, 0): the environment wins, then the earlier files ($NCCL_CONF_FILE or
// ~/.nccl.conf before /etc/nccl.conf). File names are compared trimmed, so "NCCL_DEBUG " counts as NCCL's.
std::vector<NcclSetting> nccl_in_effect(const EnvFacts& env) {
  std::map<std::string, NcclSetting> seen;
  for (const auto& [name, value] : env.all)
    if (nccl_name(name)) seen.emplace(name, NcclSetting{name, value, "", 0});
  for (const auto& file : env.nccl_conf)
    for (const auto& s : file.settings)
      if (nccl_name(s.name)) seen.emplace(s.name, NcclSetting{s.name, s.value, file.path, s.line});
  std::vector<NcclSetting> out;
  for (auto& [name, s] : seen)
    out.push_back(std::move(s));
  return out;
}

void normalise_env(EnvFacts& env, const Knowledge& kb) {
  env.gpu_vars.clear();
  env.hsa_overrides.clear();
  for (const auto& [name, value] : env.all) {
    if (kb.is_gpu_env_var(name)) env.gpu_vars[name] = value;
    if (name == "HSA_OVERRIDE_GFX_VERSION" || text::starts_with(name, "HSA_OVERRIDE_GFX_VERSION_"))
      env.hsa_overrides.push_back({name, value, parse::hsa_override_gfx(value)});
  }
  env.nccl = nccl_in_effect(env);
  env.nccl_ib_hca.reset();
  for (const auto& s : env.nccl)
    if (s.name == "NCCL_IB_HCA") env.nccl_ib_hca = parse::nccl_ib_hca(s.value);
}

} // namespace

void link_tool_errors(Facts& facts, const Knowledge& kb) {
  for (auto& t : facts.tools) {
    if (t.timed_out || !t.found || t.output.empty()) continue;
    std::string tool = std::filesystem::path(t.program).filename().string();
    std::vector<const ToolErrorRow*> rows;
    std::vector<std::string_view> parts;
    for (const auto& row : kb.tool_errors)
      if (row.tool == tool) {
        rows.push_back(&row);
        parts.push_back(row.line);
      }
    if (parts.empty()) continue; // no known lines of this tool: its output is not read
    auto lines = parse::lines_containing(t.output, parts, 10);
    if (lines.empty()) continue;
    auto best = std::ranges::min_element(lines, {}, &parse::PartLine::part);
    t.failure = best->line.size() > 300 ? best->line.substr(0, 300) + "..." : best->line;
    t.known_error = rows[best->part]->meaning;
    t.evidence_lines.clear();
    for (const auto& l : lines)
      t.evidence_lines.push_back(l.line);
    if (t.key == "rocminfo") facts.amd.rocminfo_failure = {t.failure, "cmd rocminfo"};
  }
}

void link_gpus(Facts& facts, const Knowledge& kb) {
  for (auto& gpu : facts.gpus) {
    gpu.model =
        kb.find_gpu(gpu.vendor_id, gpu.device_id, gpu.revision, gpu.subsystem_device, gpu.subsystem_vendor);
    if (gpu.vendor == Vendor::amd) link_kfd_node(facts.amd, kb, gpu);
  }
}

void link_repos(RepoFacts& repos, const Knowledge& kb) {
  std::erase_if(repos.sources, [&](RepoSource& s) {
    auto row = kb.vendor_repo(s.uri);
    if (!row) return true;
    s.vendor = row->vendor;
    s.release_specific = row->release_specific;
    return false;
  });
}

// The toolkit's requirements of this environment (internal/config/image/cuda_image.go GetRequirements): every
// NVIDIA_REQUIRE_* but NVIDIA_REQUIRE_JETPACK*, or for a legacy image (CUDA_VERSION without
// NVIDIA_REQUIRE_CUDA) cuda>=<major.minor>.
void link_nvidia_requirements(const std::map<std::string, std::string>& env, ContainerFacts& c) {
  c.nvidia_requirements.clear();
  for (const auto& [name, value] : env)
    if (text::starts_with(name, "NVIDIA_REQUIRE_") && !text::starts_with(name, "NVIDIA_REQUIRE_JETPACK"))
      c.nvidia_requirements.push_back({name, value, parse::nvidia_require(value)});
  auto cuda = env.find("CUDA_VERSION");
  if (cuda != env.end() && !env.contains("NVIDIA_REQUIRE_CUDA")) {
    std::string v = "cuda>=" + text::version_prefix(cuda->second, 2);
    c.nvidia_requirements.push_back({"CUDA_VERSION", v, parse::nvidia_require(v)});
  }
  auto disable = env.find("NVIDIA_DISABLE_REQUIRE");
  static const char* const k_true[] = {"1", "t", "T", "TRUE", "true", "True"};
  c.nvidia_disable_require =
      disable != env.end() && std::ranges::find(k_true, disable->second) != std::end(k_true);
}

void normalise_facts(Facts& facts, const Knowledge& kb) {
  for (auto& smi : facts.nvidia.smi_gpus)
    smi.bdf = parse::bdf_from_nvidia_bus_id(smi.bus_id);
  if (facts.os.kernel_cmdline)
    facts.os.kernel_params = parse::kernel_cmdline(*facts.os.kernel_cmdline);
  else
    facts.os.kernel_params.reset();
  normalise_env(facts.env, kb);
  link_nvidia_requirements(facts.env.all, facts.containers);
  link_tool_errors(facts, kb);
  for (auto& env : facts.python.envs)
    for (auto& x : env.extensions)
      x.built_for = extension_build(x);
}

void link_facts(Facts& facts, const Knowledge& kb) {
  link_gpus(facts, kb);
  link_repos(facts.repos, kb);
  normalise_facts(facts, kb);
}

} // namespace gpudoctor
