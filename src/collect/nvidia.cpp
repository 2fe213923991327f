// The NVIDIA kernel module and user-space driver: /proc/driver/nvidia/version, nvidia-smi, packages.
#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// "550.90.07-0ubuntu1" / "1:550.90.07-1" -> "550.90.07": the upstream part of a package version.
std::string upstream_version(const std::string& v) {
  std::string s = v;
  if (auto colon = s.find(':'); colon != std::string::npos) s = s.substr(colon + 1);
  if (auto dash = s.find('-'); dash != std::string::npos) s = s.substr(0, dash);
  return s;
}

void collect_userspace_packages(const PackageFacts& packages, NvidiaFacts& nvidia) {
  // Ubuntu: libnvidia-compute-<branch>; Debian: libnvidia-ml1 / libcuda1; NVIDIA's repo: same names.
  for (const auto& [name, version] : packages.installed) {
    bool relevant = text::starts_with(name, "libnvidia-compute-") || name == "libnvidia-ml1" ||
                    name == "libcuda1" || text::starts_with(name, "nvidia-driver-libs");
    if (!relevant) continue;
    std::string v = upstream_version(version);
    if (!v.empty() && std::find(nvidia.libnvidia_ml_versions.begin(), nvidia.libnvidia_ml_versions.end(),
                                v) == nvidia.libnvidia_ml_versions.end())
      nvidia.libnvidia_ml_versions.push_back(v);
  }
}

void apply_smi_report(const parse::NvidiaSmiReport& report, const std::string& source, NvidiaFacts& nvidia) {
  if (!report.driver_version.empty()) nvidia.smi_driver_version = {report.driver_version, source};
  if (!report.cuda_version.empty()) nvidia.smi_cuda_version = {report.cuda_version, source};
  nvidia.smi_gpus = report.gpus;
}

// Runs nvidia-smi (XML first; the table only when a snapshot has nothing else) and records what it says.
void collect_smi(SystemView& view, const CollectOptions& opt, NvidiaFacts& nvidia,
                 std::vector<ToolRun>& tools) {
  CommandSpec spec = keyed_command_spec(KeyedCommand::nvidia_smi_xml, opt.tool_timeout);
  auto r = view.run(spec);
  // Where there is no XML (fixtures made from a pasted `nvidia-smi -q` or the default table), the text forms.
  for (KeyedCommand other : {KeyedCommand::nvidia_smi_q, KeyedCommand::nvidia_smi_table}) {
    if (r.found) break;
    spec = keyed_command_spec(other, opt.tool_timeout);
    r = view.run(spec);
  }
  if (!r.found) return;
  ToolRun run = tool_run_of(r, spec);
  std::string source = "cmd " + spec.key;
  if (r.ok()) {
    auto report = spec.key == "nvidia-smi-xml" ? parse::nvidia_smi_xml(r.out)
                  : spec.key == "nvidia-smi-q" ? parse::nvidia_smi_query(r.out)
                                               : parse::nvidia_smi_table(r.out);
    if (report) apply_smi_report(*report, source, nvidia);
  } else if (!r.timed_out) {
    auto failure = parse::nvidia_smi_failure(text::strip_ansi(r.out + "\n" + r.err));
    using Kind = parse::NvidiaSmiFailure::Kind;
    nvidia.smi_no_driver = failure.kind == Kind::no_driver;
    nvidia.smi_mismatch = failure.kind == Kind::version_mismatch;
    if (!failure.nvml_library_version.empty())
      nvidia.nvml_library_version = {failure.nvml_library_version, source};
    run.failure = failure.message.empty() ? text::trim(r.err.empty() ? r.out : r.err) : failure.message;
    if (run.failure.size() > 300) run.failure = run.failure.substr(0, 300) + "...";
  }
  tools.push_back(std::move(run));
}

} // namespace

namespace {

// The error counters of the links -s listed, asked only where a link is active (a card without a bridge has
// nothing to count). A GPU or link -e names that -s did not list is left out.
void collect_nvlink_errors(SystemView& view, const CollectOptions& opt, NvidiaFacts& nvidia,
                           std::vector<ToolRun>& tools) {
  bool active = std::ranges::any_of(
      nvidia.nvlink, [](const NvlinkGpu& g) { return std::ranges::any_of(g.links, &NvlinkLink::active); });
  if (!active) return;
  CommandSpec spec = keyed_command_spec(KeyedCommand::nvidia_smi_nvlink_errors, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  tools.push_back(tool_run_of(r, spec));
  if (!r.ok()) return;
  for (const NvlinkGpu& counted : parse::nvidia_smi_nvlink_errors(r.out))
    for (NvlinkGpu& g : nvidia.nvlink) {
      if (g.index != counted.index || (!g.uuid.empty() && !counted.uuid.empty() && g.uuid != counted.uuid))
        continue;
      for (const NvlinkLink& c : counted.links)
        for (NvlinkLink& l : g.links)
          if (l.link == c.link) {
            l.replay_errors = c.replay_errors;
            l.recovery_errors = c.recovery_errors;
            l.crc_errors = c.crc_errors;
          }
    }
  nvidia.nvlink_errors_read = true;
}

// The NVLinks of each GPU, where GPUs can have them: two or more, or one that reports an NVSwitch fabric
// state (a GPU of an HGX board given to a VM alone). A PCIe GPU without a bridge lists its links inactive.
void collect_nvlink(SystemView& view, const CollectOptions& opt, NvidiaFacts& nvidia,
                    std::vector<ToolRun>& tools) {
  bool fabric = std::ranges::any_of(nvidia.smi_gpus, [](const NvidiaSmiGpu& g) {
    return g.health.fabric_state && *g.health.fabric_state != "N/A";
  });
  if (nvidia.smi_gpus.size() < 2 && !fabric) return;
  CommandSpec spec = keyed_command_spec(KeyedCommand::nvidia_smi_nvlink_status, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  tools.push_back(tool_run_of(r, spec));
  if (!r.ok()) return;
  nvidia.nvlink = parse::nvidia_smi_nvlink_status(r.out);
  nvidia.nvlink_read = true;
  collect_nvlink_errors(view, opt, nvidia, tools);
}

} // namespace

void collect_nvidia(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                    NvidiaFacts& nvidia, std::vector<ToolRun>& tools) {
  if (auto text = view.read_file(paths::nvidia_driver_version)) {
    if (auto v = parse::nvidia_proc_version(*text)) {
      nvidia.kernel_module_version = {v->version, std::string(paths::nvidia_driver_version) + ":1"};
      nvidia.open_kernel_module = v->open;
    }
  }
  if (!nvidia.kernel_module_version)
    if (auto text = view.read_file(paths::module_version("nvidia")))
      if (!text::trim(*text).empty())
        nvidia.kernel_module_version = {text::trim(*text), paths::module_version("nvidia")};
  collect_userspace_packages(packages, nvidia);
  collect_smi(view, opt, nvidia, tools);
  collect_nvlink(view, opt, nvidia, tools);
}

} // namespace gpudoctor
