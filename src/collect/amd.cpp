// AMD: /dev/kfd, the KFD topology (Documentation: drivers/gpu/drm/amd/amdkfd, libhsakmt topology.c),
// rocminfo.
#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

void collect_kfd_topology(SystemView& view, AmdFacts& amd) {
  const std::string base = paths::kfd_topology_nodes;
  auto nodes = view.list_dir(base);
  if (!nodes) return;
  amd.kfd_topology = true;
  for (const auto& name : *nodes) {
    auto id = text::to_int(name);
    if (!id || *id < 0 || *id > 4096) continue;
    std::string path = base + "/" + name + "/properties";
    auto text = view.read_file(path);
    if (!text) continue;
    KfdNode node = parse::kfd_node_properties(*text, static_cast<int>(*id));
    node.source = path;
    amd.kfd_nodes.push_back(std::move(node));
  }
  std::sort(amd.kfd_nodes.begin(), amd.kfd_nodes.end(),
            [](const KfdNode& a, const KfdNode& b) { return a.node_id < b.node_id; });
}

void collect_rocminfo(SystemView& view, const CollectOptions& opt, AmdFacts& amd,
                      std::vector<ToolRun>& tools) {
  CommandSpec spec = keyed_command_spec(KeyedCommand::rocminfo, opt.tool_timeout);
  // The hardware as it is: an override or a visibility mask would make rocminfo report what they pretend.
  spec.unset_env = {"HSA_OVERRIDE_GFX_VERSION*", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                    "GPU_DEVICE_ORDINAL", "CUDA_VISIBLE_DEVICES"};
  auto r = view.run(spec);
  if (!r.found) return;
  ToolRun run = tool_run_of(r, spec);
  if (!r.timed_out) {
    auto info = parse::rocminfo(text::strip_ansi(r.out + "\n" + r.err));
    amd.rocminfo_ok = info.ok && r.ok();
    amd.rocminfo_agents = info.agents;
    if (!info.runtime_version.empty()) amd.rocminfo_runtime_version = {info.runtime_version, "cmd rocminfo"};
    // The link stage names the failure by knowledge tool_errors.yaml, whatever the exit status; this is
    // what is said without it.
    if (!amd.rocminfo_ok) {
      std::string failure = text::trim(text::strip_ansi(r.err.empty() ? r.out : r.err)).substr(0, 300);
      if (failure.empty())
        failure = "exit status " + (r.exit_code ? std::to_string(*r.exit_code) : "unknown");
      amd.rocminfo_failure = {failure, "cmd rocminfo"};
      run.failure = failure;
    }
  }
  tools.push_back(std::move(run));
}

// Each parameter the module shows (0444 to all; a few 0600 ones only to root), at most 512 of 64 bytes each
// (the kernel prints a value of an int, a bool, a hex mask or a short text).
void collect_amdgpu_params(SystemView& view, AmdFacts& amd) {
  const std::string dir = paths::module_parameters("amdgpu");
  auto names = view.list_dir(dir);
  if (!names) return;
  amd.amdgpu_params_source = dir;
  std::size_t kept = 0;
  for (const auto& name : *names) {
    if (kept == 512 || name.empty() || name.size() > 64 || name.find('/') != std::string::npos) continue;
    auto value = view.read_file(dir + "/" + name);
    if (!value || value->size() > 4096) continue;
    std::string v = text::trim(*value);
    if (v.size() > 64) continue;
    amd.amdgpu_params[name] = std::move(v);
    ++kept;
  }
}

} // namespace

void collect_amd(SystemView& view, const CollectOptions& opt, bool amd_gpu, AmdFacts& amd,
                 std::vector<ToolRun>& tools) {
  auto kfd = view.stat(paths::kfd);
  amd.kfd_device = kfd && kfd->type == FileType::chr;
  collect_kfd_topology(view, amd);
  if (auto version = view.read_file(paths::module_version("amdgpu")))
    if (!text::trim(*version).empty())
      amd.amdgpu_module_version = {text::trim(*version), paths::module_version("amdgpu")};
  collect_amdgpu_params(view, amd);
  if (amd.kfd_device || amd_gpu) collect_rocminfo(view, opt, amd, tools);
}

} // namespace gpudoctor
