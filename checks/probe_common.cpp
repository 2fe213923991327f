#include "checks/probe_common.hpp"

#include "checks/common.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpudoctor::checks {

bool skip_without_probes(const Facts& f, Results& out) {
  if (f.probes.requested) return true;
  out.skip("", "the GPU probes were not run (gpudoctor check --probes or gpudoctor probe runs them)");
  return false;
}

Vendor vendor_of(const BackendProbes& b) {
  return b.backend == "cuda" ? Vendor::nvidia : Vendor::amd;
}

const Gpu* pci_gpu_of(const Facts& f, const std::string& pci_bus_id) {
  return f.gpu_at(pci_bus_id); // the probes' reader wrote it in sysfs form (probe::normalise_bus_id)
}

bool shown_to_probes(const Facts& f, const Gpu& gpu) {
  const auto& chosen = f.probes.chosen_gpus;
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), gpu.bdf) != chosen.end();
}

std::string device_subject(const Facts& f, const BackendProbes& b, int index) {
  if (const ProbeDevice* d = b.device(index))
    if (const Gpu* gpu = pci_gpu_of(f, d->pci_bus_id)) return gpu->subject();
  return fmt::format("{} device {}", b.title(), index);
}

std::string runtime_subject(const BackendProbes& b) {
  return fmt::format("{} runtime", b.title());
}

std::string error_text(const ProbeError& e) {
  if (e.message.empty() || e.message == e.name) return e.name;
  return fmt::format("{} ({})", e.name, e.message);
}

std::string error_evidence(const ProbeRun& run, const ProbeError& e) {
  std::string s = fmt::format("cmd {}: {}", run.key, e.call);
  if (e.device) s += fmt::format("{}{}", e.call.empty() ? "device " : " on device ", *e.device);
  s += fmt::format("{}{}", s.back() == ' ' ? "" : ": ", e.name);
  if (!e.message.empty() && e.message != e.name) s += fmt::format(": {}", e.message);
  return s;
}

std::string run_evidence(const ProbeRun& run) {
  if (!run.run) return fmt::format("cmd {}: not run ({})", run.key, run.not_run);
  if (!run.found) return fmt::format("cmd {}: program not found", run.key);
  if (run.timed_out) return fmt::format("cmd {}: killed at its time limit of {} ms", run.key, run.timeout_ms);
  if (!run.exit_code) return fmt::format("cmd {}: killed by a signal after {} ms", run.key, run.duration_ms);
  return fmt::format("cmd {}: exit {} after {} ms", run.key, *run.exit_code, run.duration_ms);
}

std::optional<std::string> run_trouble(const ProbeRun& run) {
  if (!run.run || run.timed_out || run.completed()) return std::nullopt;
  std::string what;
  if (!run.found && !run.untrusted.empty())
    what = fmt::format("was not started: another user could change {}, and root runs no such program",
                       run.untrusted);
  else if (!run.found)
    what = "could not be started: its program is missing";
  else if (!run.exit_code)
    what = "crashed (killed by a signal)";
  else if (*run.exit_code != 0)
    what = fmt::format("failed with exit status {}", *run.exit_code);
  else
    what = "stopped without finishing its report";
  if (!run.stderr_tail.empty()) what += fmt::format("; it said: {}", run.stderr_tail);
  return what;
}

std::vector<const ProbeError*> errors_for(const ProbeRun& run, int device) {
  std::vector<const ProbeError*> out;
  for (const auto& e : run.errors)
    if (e.device.value_or(-1) == device) out.push_back(&e);
  return out;
}

std::optional<double> link_gts(const std::optional<std::string>& speed) {
  if (!speed) return std::nullopt;
  auto words = text::split(*speed, ' ');
  auto gts = text::to_double(words.empty() ? "" : words[0]);
  if (!gts || *gts <= 0) return std::nullopt;
  return gts;
}

std::optional<double> pcie_gbps(const std::optional<std::string>& speed, std::optional<int> width) {
  if (!width || *width <= 0) return std::nullopt;
  auto gts = link_gts(speed);
  if (!gts) return std::nullopt;
  double coding = *gts <= 5.0 ? 8.0 / 10.0 : 128.0 / 130.0;
  return *gts * coding / 8.0 * *width;
}

std::string link_text(const std::optional<std::string>& speed, std::optional<int> width) {
  std::string s = speed ? text::trim(*speed) : std::string("unknown speed");
  if (width) s += fmt::format(" x{}", *width);
  return s;
}

std::string gbps(double value) {
  return value >= 100 ? fmt::format("{:.0f} GB/s", value) : fmt::format("{:.1f} GB/s", value);
}

std::vector<std::string> failure_evidence(const ProbeRun& run, int device) {
  std::vector<std::string> evidence = {run_evidence(run)};
  for (const ProbeError* e : errors_for(run, device))
    evidence.push_back(error_evidence(run, *e));
  return evidence;
}

void for_each_run(const Facts& f, Results& out, const std::string& name, Status trouble, RunJudge judge) {
  if (!skip_without_probes(f, out)) return;
  std::size_t before = out.items().size();
  std::vector<std::string> quiet;
  for (const auto& b : f.probes.backends) {
    const bool vendor_gpus = f.count(vendor_of(b)) > 0;
    const ProbeRun* run = b.run(name);
    if (!b.unavailable.empty() || !run) {
      if (vendor_gpus)
        out.skip(runtime_subject(b), fmt::format("no {} probes: {}", b.title(), b.unavailable));
      else
        quiet.push_back(fmt::format("{}: no probes", b.title()));
      continue;
    }
    if (!run->run) {
      // Without a GPU of the runtime's vendor there is nothing it should have probed.
      if (!vendor_gpus)
        quiet.push_back(fmt::format("{}: {}", b.title(), run->not_run));
      else
        out.skip(runtime_subject(b), fmt::format("the {} probe was not run: {}", name, run->not_run));
      continue;
    }
    if (run->timed_out) {
      out.skip(runtime_subject(b), fmt::format("the {} probe timed out (see probe.timeout)", name));
      continue;
    }
    if (auto what = run_trouble(*run)) {
      out.add(trouble, runtime_subject(b), fmt::format("The {} {} probe {}", b.title(), name, *what),
              {run_evidence(*run)}, no_fix);
      continue;
    }
    judge(f, b, *run, out);
  }
  if (out.items().size() == before)
    out.skip("", quiet.empty() ? "nothing to judge"
                               : fmt::format("no GPU to probe ({})", text::join(quiet, "; ")));
}

std::vector<std::string> visibility_vars(const Facts& f, Vendor v) {
  std::vector<const char*> names = {"CUDA_VISIBLE_DEVICES"};
  if (v == Vendor::amd)
    names = {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"};
  std::vector<std::string> out;
  for (const char* name : names) {
    std::optional<std::string> value;
    if (auto it = f.env.all.find(name); it != f.env.all.end())
      value = it->second;
    else if (auto g = f.env.gpu_vars.find(name); g != f.env.gpu_vars.end())
      value = g->second;
    if (value) out.push_back(env_evidence(f, name, *value));
  }
  return out;
}

} // namespace gpudoctor::checks
