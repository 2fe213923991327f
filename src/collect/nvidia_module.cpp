// `modinfo nvidia` (snapshot key modinfo-nvidia): the installed NVIDIA module's file, version, license and
// signer, which say its flavour (license "NVIDIA": proprietary; "Dual MIT/GPL": open) and where it came from
// when it is not loaded. Asked only then: a loaded module says its flavour in /proc/driver/nvidia/version.
#include "collect/collectors.hpp"
#include "parse/parsers_system.hpp"

namespace gpudoctor {

void collect_nvidia_modinfo(SystemView& view, const CollectOptions& opt, const std::vector<Gpu>& gpus,
                            NvidiaFacts& nvidia, std::vector<ToolRun>& tools) {
  bool nvidia_gpu =
      std::any_of(gpus.begin(), gpus.end(), [](const Gpu& g) { return g.vendor == Vendor::nvidia; });
  if (!nvidia_gpu || nvidia.kernel_module_version) return;
  CommandSpec spec = keyed_command_spec(view, KeyedCommand::modinfo_nvidia, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  ToolRun run = tool_run_of(r, spec); // "Module nvidia not found" is an answer: no module installed
  run.program = "modinfo";
  tools.push_back(run);
  if (!r.ok()) return;
  auto fields = parse::modinfo(r.out);
  const std::string source = "cmd modinfo-nvidia";
  for (auto [name, sink] :
       {std::pair{"filename", &nvidia.modinfo_filename}, std::pair{"version", &nvidia.modinfo_version},
        std::pair{"license", &nvidia.modinfo_license}, std::pair{"signer", &nvidia.modinfo_signer}})
    if (auto it = fields.find(name); it != fields.end() && !it->second.empty()) *sink = {it->second, source};
}

} // namespace gpudoctor
