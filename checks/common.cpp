#include "checks/common.hpp"

#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpudoctor::checks {

bool nvidia_driver_loaded(const Facts& f) {
  return f.nvidia.kernel_module_version.value.has_value() || f.modules.has("nvidia");
}

std::optional<Fact<std::string>> nvidia_driver_version(const Facts& f) {
  if (f.nvidia.kernel_module_version) return f.nvidia.kernel_module_version;
  if (auto it = f.modules.loaded.find("nvidia"); it != f.modules.loaded.end() && !it->second.empty())
    return Fact<std::string>{it->second, paths::module_version("nvidia")};
  if (f.nvidia.smi_driver_version) return f.nvidia.smi_driver_version;
  return std::nullopt;
}

bool cuda_toolkit_installed(const Facts& f) {
  return !f.toolkits.cuda.empty() || f.toolkits.nvcc_path;
}
bool rocm_installed(const Facts& f) {
  return !f.toolkits.rocm.empty();
}

bool has_compute_driver(const Gpu& gpu) {
  if (!gpu.driver) return false;
  return gpu.vendor == Vendor::nvidia ? *gpu.driver == "nvidia" : *gpu.driver == "amdgpu";
}

std::size_t usable_gpus(const Facts& f, Vendor v) {
  std::size_t n = 0;
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == v && has_compute_driver(gpu)) ++n;
  return n;
}

bool any_torch_for(const Facts& f, Vendor vendor) {
  return std::ranges::any_of(f.python.envs, [&](const PythonEnv& e) {
    return e.torch && (vendor == Vendor::nvidia ? e.torch->cuda : e.torch->hip).has_value();
  });
}

std::string smi_source(const Facts& f) {
  return f.nvidia.smi_driver_version ? f.nvidia.smi_driver_version.source : "cmd nvidia-smi-xml";
}

std::string gpu_evidence(const Gpu& gpu) {
  std::string rev = gpu.revision ? fmt::format(" rev {:02x}", *gpu.revision) : "";
  return fmt::format("gpu{} {} {:04x}:{:04x}{} ({})", gpu.index, gpu.bdf, gpu.vendor_id, gpu.device_id, rev,
                     gpu.display_name());
}

std::string python_subject(const PythonEnv& env) {
  return fmt::format("python3 ({}: {})", env.role, env.executable);
}

std::vector<std::string> pip_uninstall(const PythonEnv& env, const std::vector<std::string>& names) {
  // PEP 508's name: starts and ends with a letter or digit.
  auto pypi_name = [](const std::string& n) {
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    return !n.empty() && alnum(n.front()) && alnum(n.back()) && std::all_of(n.begin(), n.end(), [&](char c) {
      return alnum(c) || c == '.' || c == '_' || c == '-';
    });
  };
  std::vector<std::string> words = {env.executable.empty() ? "python3" : env.executable, "-m", "pip",
                                    "uninstall", "-y"};
  for (const auto& n : names)
    if (pypi_name(n) && std::find(words.begin() + 5, words.end(), n) == words.end()) words.push_back(n);
  if (words.size() == 5) return {};
  return words;
}

std::vector<std::string> profile_sets(const Facts& f, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& a : f.stack_paths.assignments)
    if (a.name == name) out.push_back(fmt::format("{}:{}", a.file, a.line));
  return out;
}

namespace {

// At most three places, then how many more: a profile may assign a variable on every other line.
std::string listed_places(const std::vector<std::string>& where) {
  std::vector<std::string> shown(where.begin(), where.begin() + std::min<std::size_t>(where.size(), 3));
  std::string out = text::join(shown, ", ");
  if (where.size() > shown.size()) out += fmt::format(" and {} more", where.size() - shown.size());
  return out;
}

} // namespace

std::string env_evidence(const Facts& f, const std::string& name, const std::string& value) {
  if (f.stack_paths.profiles_read == 0) return fmt::format("env {}={}", name, value);
  auto where = profile_sets(f, name);
  return where.empty() ? fmt::format("env {}={} (set in no profile gpudoctor read)", name, value)
                       : fmt::format("env {}={} (set in {})", name, value, listed_places(where));
}

std::string where_set(const Facts& f, const std::string& name) {
  if (f.stack_paths.profiles_read == 0) return "";
  auto where = profile_sets(f, name);
  if (!where.empty()) return fmt::format(" It is set in {}.", listed_places(where));
  std::string unread =
      f.stack_paths.not_read.empty() ? "" : fmt::format(" ({} left unread)", f.stack_paths.not_read.size());
  std::size_t n = f.stack_paths.profiles_read;
  std::string none = n == 1 ? "The one profile gpudoctor read does not set it"
                            : fmt::format("None of the {} profiles gpudoctor read sets it", n);
  return fmt::format(" {}{}: it comes from the environment gpudoctor started in (this shell, a systemd "
                     "unit's Environment=, a job script or the container's), which a profile fix does not "
                     "change.",
                     none, unread);
}

std::string gfx_family(const Knowledge& kb, long long gfx_target_version) {
  if (auto family = kb.isa_family(gfx_target_version)) return *family;
  return fmt::format("GFX{}.{} (unknown)", gfx_target_version / 10000, (gfx_target_version / 100) % 100);
}

std::vector<std::string> GpuOverride::evidence(const Facts& f, const Gpu& gpu) const {
  std::vector<std::string> out = {env_evidence(f, name, value), gpu_evidence(gpu)};
  if (gpu.kfd) out.push_back(fmt::format("{}: gfx_target_version {}", gpu.kfd->source, real));
  return out;
}

std::optional<GpuOverride> override_for(const Facts& f, const Gpu& gpu, Results& out) {
  auto named = [&](const std::string& name) -> const HsaOverride* {
    for (const auto& o : f.env.hsa_overrides)
      if (o.name == name) return &o;
    return nullptr;
  };
  const HsaOverride* o =
      gpu.kfd ? named(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", gpu.kfd->node_id)) : nullptr;
  if (!o) o = named("HSA_OVERRIDE_GFX_VERSION");
  if (!o) {
    out.pass(gpu.subject(), "no override applies to this GPU");
    return std::nullopt;
  }
  auto real = gpu.gfx_target_version();
  if (!o->gfx_target_version) {
    out.skip(gpu.subject(), fmt::format("{} is malformed (see env.hsa-override-invalid)", o->name));
    return std::nullopt;
  }
  if (!real) {
    out.skip(gpu.subject(), "this GPU's own gfx target is not known");
    return std::nullopt;
  }
  return GpuOverride{o->name, o->value, *o->gfx_target_version, *real};
}

std::string gfx_name(const Knowledge& kb, long long v) {
  if (auto row = kb.find_gfx(v)) return row->target;
  // The LLVM name prints the stepping in hex: 9.0.10 is gfx90a.
  // Unsigned as printf's %llx was, so a (garbage) negative version reads the same as before.
  return fmt::format("gfx{}{}{:x}", v / 10000, (v / 100) % 100, static_cast<unsigned long long>(v % 100));
}

bool integrated_gpu(const Knowledge& kb, const Gpu& gpu) {
  if (gpu.vendor != Vendor::amd) return false;
  auto version = gpu.gfx_target_version();
  auto row = version ? kb.find_gfx(*version) : std::nullopt;
  return row && row->apu;
}

bool integrated_beside_discrete(const CheckContext& ctx, const Gpu& gpu) {
  if (!integrated_gpu(ctx.kb, gpu)) return false;
  return std::ranges::any_of(ctx.facts.gpus, [&](const Gpu& other) {
    return other.vendor == Vendor::amd && !integrated_gpu(ctx.kb, other);
  });
}

std::size_t discrete_amd_count(const CheckContext& ctx) {
  return static_cast<std::size_t>(std::ranges::count_if(ctx.facts.gpus, [&](const Gpu& gpu) {
    return gpu.vendor == Vendor::amd && !integrated_beside_discrete(ctx, gpu);
  }));
}

std::optional<RocmInUse> rocm_in_use(const Facts& f) {
  for (const char* what : {"/opt/rocm", "ROCM_PATH"})
    for (const auto& p : f.stack_paths.rocm)
      if (p.what == what && p.exists && p.version)
        return RocmInUse{
            *p.version,
            fmt::format("{} -> {}: ROCm {} ({})", p.what, p.resolved, *p.version, p.version.source), false};
  const RocmInstall* best = nullptr;
  for (const auto& r : f.toolkits.rocm)
    if (r.version && (!best || text::compare_versions(*r.version, *best->version) > 0)) best = &r;
  if (!best) return std::nullopt;
  return RocmInUse{*best->version,
                   fmt::format("{}: ROCm {} ({})", best->path, *best->version, best->version.source),
                   best->distribution_package};
}

std::string gpu_gfx(const Gpu& gpu) {
  std::string arch = gpu.arch();
  return text::lower(arch.substr(0, arch.find(':')));
}

} // namespace gpudoctor::checks
