// Prometheus' text exposition format, for node_exporter's textfile collector (docs/fleet.md). Naming follows
// Prometheus' conventions: a `gpudoctor_` prefix, base units in the name (seconds, bytes per second,
// celsius, watts), `_info` metrics of value 1 whose labels carry versions. A result is a series per check
// id, subject and key whose value is its status, with the GPU's labels where its subject is a GPU; no label
// holds a status or a message, so a series lives as long as its subject does. The measured values are
// prometheus_gauges.cpp's.
#include "report/program_formats.hpp"
#include "report/prometheus_series.hpp"

#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace gpudoctor {

int metric_value(Status s) {
  switch (s) {
  case Status::pass:
    return 0;
  case Status::skip:
    return 1;
  case Status::info:
    return 2;
  case Status::warn:
    return 3;
  case Status::error:
    return 4;
  }
  return 4;
}

namespace {

using prom::family;
using prom::label;

using Row = std::tuple<std::string, std::string, std::string>; // id, subject, key

// The series of one check: its id, subject and key, and the GPU's labels where the subject is a GPU.
std::string result_labels(const Row& row, const prom::GpuLabelIndex& gpus) {
  const auto& [id, subject, key] = row;
  std::string out = fmt::format("id=\"{}\",subject=\"{}\"", label(id), label(subject));
  if (!key.empty()) out += fmt::format(",key=\"{}\"", label(key));
  if (const prom::GpuLabels* g = gpus.subject(subject)) out += "," + g->text();
  return out;
}

// (id, subject, key) -> worst value; the subjects and keys of one id beyond its bound share
// subject="(others)" with their worst value.
std::map<Row, int> worst_of(const std::vector<Result>& results) {
  std::map<Row, int> worst;
  std::map<std::string, std::set<std::pair<std::string, std::string>>> seen_of;
  for (const auto& r : results) {
    std::pair<std::string, std::string> which{r.subject, r.key};
    auto& seen = seen_of[r.id];
    if (!seen.count(which) && seen.size() >= k_subjects_per_check) which = {"(others)", ""};
    seen.insert(which);
    auto [it, fresh] = worst.try_emplace({r.id, which.first, which.second}, metric_value(r.status));
    if (!fresh) it->second = std::max(it->second, metric_value(r.status));
  }
  return worst;
}

void check_results(std::string& out, const std::vector<Result>& results, const prom::GpuLabelIndex& gpus) {
  std::map<Row, int> worst = worst_of(results);
  family(out, "gpudoctor_check_result",
         "Result of a gpudoctor check per subject (and key): 0 pass, 1 skip, 2 info, 3 warn, 4 error.");
  for (const auto& [row, value] : worst)
    prom::series(out, "gpudoctor_check_result", result_labels(row, gpus), value);
  family(out, "gpudoctor_check_failed", "1 where a gpudoctor check's result is an error, else 0.");
  for (const auto& [row, value] : worst)
    prom::series(out, "gpudoctor_check_failed", result_labels(row, gpus),
                 value == metric_value(Status::error) ? 1 : 0);

  Summary s = summarize(results);
  family(out, "gpudoctor_results", "Number of results of the last run with each status.");
  for (auto [name, count] :
       {std::pair{"pass", s.pass}, {"skip", s.skip}, {"info", s.info}, {"warn", s.warn}, {"error", s.error}})
    out += fmt::format("gpudoctor_results{{status=\"{}\"}} {}\n", name, count);
}

void gpu_info(std::string& out, const Facts& f, const prom::GpuLabelIndex& gpus) {
  family(out, "gpudoctor_gpu_info",
         "A GPU on the PCI bus, with its model, target and bound driver (value 1).");
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    out += fmt::format("gpudoctor_gpu_info{{{},vendor=\"{}\",model=\"{}\",arch=\"{}\",driver=\"{}\"}} 1\n",
                       gpus.in_order[i].text(),
                       g.vendor == Vendor::nvidia ? "nvidia"
                       : g.vendor == Vendor::amd  ? "amd"
                                                  : "other",
                       label(g.display_name()), label(g.arch()), label(g.driver ? *g.driver : std::string()));
  }
}

using Component = std::tuple<std::string, std::string, std::string>; // name, version, path

std::set<Component> components(const Facts& f) {
  std::set<Component> out;
  auto add = [&](const char* name, const Fact<std::string>& version, const std::string& path = {}) {
    if (version) out.emplace(name, *version, path);
  };
  add("nvidia_kernel_module", f.nvidia.kernel_module_version);
  add("nvidia_driver", f.nvidia.smi_driver_version);
  add("nvidia_driver_cuda", f.nvidia.smi_cuda_version);
  add("amdgpu_module", f.modules.has("amdgpu") ? f.amd.amdgpu_module_version : Fact<std::string>{});
  add("rocm_runtime", f.amd.rocminfo_runtime_version);
  for (const auto& c : f.toolkits.cuda)
    add("cuda_toolkit", c.version, c.path);
  for (const auto& r : f.toolkits.rocm)
    add("rocm", r.version, r.path);
  add("cudnn", f.toolkits.cudnn_version);
  add("nccl", f.toolkits.nccl_version);
  add("rccl", f.toolkits.rccl_version);
  for (const auto& e : f.python.envs) {
    add("python", e.version, e.executable);
    if (e.torch) out.emplace("torch", e.torch->version, e.executable);
  }
  return out;
}

void software_info(std::string& out, const Facts& f) {
  family(out, "gpudoctor_software_info",
         "A driver, toolkit, library or framework found, with its version and where (value 1).");
  std::set<std::tuple<std::string, std::string, std::string>> lines; // labels may coincide once bounded
  for (const auto& [name, version, path] : components(f))
    lines.emplace(name, label(version), label(path));
  for (const auto& [name, version, path] : lines)
    out += fmt::format("gpudoctor_software_info{{component=\"{}\",version=\"{}\",path=\"{}\"}} 1\n", name,
                       version, path);
}

void run_info(std::string& out, const Report& report) {
  const Facts& f = report.facts;
  auto value = [](const Fact<std::string>& v) { return label(v ? *v : std::string()); };
  family(out, "gpudoctor_os_info", "The operating system and kernel (value 1).");
  out += fmt::format("gpudoctor_os_info{{id=\"{}\",version_id=\"{}\",pretty_name=\"{}\",kernel=\"{}\"}} 1\n",
                     value(f.os.id), value(f.os.version_id), value(f.os.pretty_name),
                     value(f.os.kernel_release));
  family(out, "gpudoctor_build_info",
         "gpudoctor's own version, and whether it judged this machine or a snapshot.");
  out += fmt::format("gpudoctor_build_info{{version=\"{}\",source=\"{}\"}} 1\n", GPUDOCTOR_VERSION,
                     report.source_kind == "live" ? "live" : "snapshot");
  auto seconds = std::chrono::duration<double>(report.finished.time_since_epoch()).count();
  family(out, "gpudoctor_last_run_timestamp_seconds", "When the run ended, in seconds since the Unix epoch.");
  out += fmt::format("gpudoctor_last_run_timestamp_seconds {:.3f}\n", seconds);
  family(out, "gpudoctor_run_duration_seconds", "How long collecting the facts and judging them took.");
  out += fmt::format("gpudoctor_run_duration_seconds {:.3f}\n",
                     std::chrono::duration<double>(report.duration).count());
}

} // namespace

std::string render_prometheus_probes(const Report& report) {
  std::string out;
  prom::GpuLabelIndex gpus = prom::gpu_labels(report.facts);
  family(out, "gpudoctor_probe_result",
         "Result of a probe check per subject, from the probe run: 0 pass, 1 skip, 2 info, 3 warn, 4 error.");
  for (const auto& [row, value] : worst_of(report.results))
    prom::series(out, "gpudoctor_probe_result", result_labels(row, gpus), value);
  prom::probe_figures(out, report.facts, gpus);
  family(out, "gpudoctor_probe_last_run_timestamp_seconds",
         "When the probe run ended, in seconds since the Unix epoch.");
  out += fmt::format("gpudoctor_probe_last_run_timestamp_seconds {:.3f}\n",
                     std::chrono::duration<double>(report.finished.time_since_epoch()).count());
  return out;
}

std::string render_prometheus(const Report& report) {
  std::string out;
  prom::GpuLabelIndex gpus = prom::gpu_labels(report.facts);
  check_results(out, report.results, gpus);
  gpu_info(out, report.facts, gpus);
  prom::measurements(out, report.facts, gpus);
  prom::probe_figures(out, report.facts, gpus);
  software_info(out, report.facts);
  run_info(out, report);
  return out;
}

} // namespace gpudoctor
