// probe.memory-bandwidth: device memory bandwidth (best of copy, triad and the runtime's copy) against the
// model's floor in the knowledge tables. probe.host-bandwidth: pinned host <-> device copies against what the
// GPU's PCIe link carries (sysfs max speed x width), or the model's host floor where the tables give one.
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor::checks {

namespace {

// Pinned copies reach 75-90 % of a PCIe link's raw rate; below this fraction something is off (a link
// trained below its maximum, a slot of an older generation, a switch or IOMMU in the way).
constexpr double k_host_link_fraction = 0.6;
// Stream-style copies reach 80-93 % of the peak a device's memory clock and bus width give (an H200 here:
// 88 %, docs/probes.md). Where the tables hold no floor for a model, this fraction of that peak is one.
constexpr double k_memory_peak_fraction = 0.7;

std::vector<const ProbeBandwidth*> for_device(const std::vector<ProbeBandwidth>& all, int device) {
  std::vector<const ProbeBandwidth*> out;
  for (const auto& b : all)
    if (b.device == device) out.push_back(&b);
  return out;
}

std::string measured(const std::vector<const ProbeBandwidth*>& tests) {
  std::vector<std::string> parts;
  for (const auto* t : tests)
    parts.push_back(t->test + " " + (t->best_gbps ? gbps(*t->best_gbps) : std::string("not measured")));
  return text::join(parts, ", ");
}

std::vector<std::string> evidence_of(const ProbeRun& run, const std::vector<const ProbeBandwidth*>& tests) {
  std::vector<std::string> out;
  for (const auto* t : tests) {
    std::string line = "cmd " + run.key + ": " + t->test + " best " +
                       (t->best_gbps ? gbps(*t->best_gbps) : std::string("-")) + ", median " +
                       (t->median_gbps ? gbps(*t->median_gbps) : std::string("-")) + " over " +
                       std::to_string(t->iterations) + " runs of " + std::to_string(t->bytes >> 20) + " MiB";
    out.push_back(line + (t->verified ? ", verified" : ", NOT verified"));
  }
  return out;
}

// Adds an error and returns true when a transfer's data came back wrong.
bool wrong_data(const std::string& subject, const ProbeRun& run,
                const std::vector<const ProbeBandwidth*>& tests, Results& out) {
  std::vector<std::string> bad;
  for (const auto* t : tests)
    if (!t->verified)
      bad.push_back(t->test + (t->mismatches ? " (" + std::to_string(t->mismatches) + " wrong values)"
                                             : std::string()));
  if (bad.empty()) return false;
  out.add(Status::error, subject,
          "Data copied by the probe came back wrong: " + text::join(bad, ", ") +
              ". Memory or link errors: check ECC counters and dmesg (NVRM Xid 48/63/64/79, amdgpu RAS).",
          evidence_of(run, tests));
  return true;
}

std::optional<double> best_of(const std::vector<const ProbeBandwidth*>& tests) {
  std::optional<double> best;
  for (const auto* t : tests)
    if (t->best_gbps) best = std::max(best.value_or(0.0), *t->best_gbps);
  return best;
}

void judge_memory(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  for (const auto& d : b.devices) {
    const std::string subject = device_subject(f, b, d.index);
    auto tests = for_device(b.memory, d.index);
    if (tests.empty()) {
      std::vector<std::string> evidence = {run_evidence(run)};
      for (const ProbeError* e : errors_for(run, d.index))
        evidence.push_back(error_evidence(run, *e));
      out.add(Status::warn, subject, "The memory bandwidth of this device could not be measured", evidence);
      continue;
    }
    if (wrong_data(subject, run, tests, out)) continue;
    auto best = best_of(tests);
    auto evidence = evidence_of(run, tests);
    const Gpu* gpu = pci_gpu_of(f, d.pci_bus_id);
    std::string peak =
        d.peak_gbps() ? "; the runtime's memory clock and bus width give a peak of " + gbps(*d.peak_gbps())
                      : std::string();
    const std::string name = gpu ? gpu->display_name() : d.name;
    double floor = 0;
    if (gpu && gpu->model && gpu->model->memory_bandwidth_floor_gbps) {
      floor = *gpu->model->memory_bandwidth_floor_gbps;
      evidence.push_back(gpu->model->source + ": memory_bandwidth_floor_gbps " + gbps(floor));
    } else if (d.peak_gbps()) {
      floor = k_memory_peak_fraction * *d.peak_gbps();
      evidence.push_back("cmd probe-devices@" + b.backend + ": memory clock x bus width give a peak of " +
                         gbps(*d.peak_gbps()) + "; the floor is 70 % of it (no floor for " + name +
                         " in the knowledge tables)");
    } else {
      out.skip(subject, "Measured " + measured(tests) +
                            "; neither the knowledge tables nor the runtime (memory clock, bus width) give a "
                            "floor for " +
                            name + " to judge it against");
      continue;
    }
    if (!best || *best < floor)
      out.add(Status::warn, subject,
              "Device memory moves " + (best ? gbps(*best) : std::string("nothing measurable")) +
                  ", below the " + gbps(floor) + " a healthy " + name + " reaches" + peak +
                  ". Look for throttling (clocks, power, temperature: nvidia-smi -q -d PERFORMANCE / amd-smi "
                  "metric), other work on the GPU, or degraded memory (ECC).",
              evidence);
    else
      out.pass(subject, "Device memory moves " + gbps(*best) + " (floor " + gbps(floor) + ")", evidence);
  }
}

void judge_host(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  for (const auto& d : b.devices) {
    const std::string subject = device_subject(f, b, d.index);
    auto tests = for_device(b.host, d.index);
    if (tests.empty()) {
      std::vector<std::string> evidence = {run_evidence(run)};
      for (const ProbeError* e : errors_for(run, d.index))
        evidence.push_back(error_evidence(run, *e));
      out.add(Status::warn, subject, "Host to device bandwidth could not be measured", evidence);
      continue;
    }
    if (wrong_data(subject, run, tests, out)) continue;
    std::optional<double> slowest;
    for (const auto* t : tests)
      if (t->best_gbps) slowest = std::min(slowest.value_or(*t->best_gbps), *t->best_gbps);
    auto evidence = evidence_of(run, tests);
    const Gpu* gpu = pci_gpu_of(f, d.pci_bus_id);
    std::optional<double> floor;
    std::string basis;
    if (gpu && gpu->model && gpu->model->host_bandwidth_floor_gbps) {
      floor = gpu->model->host_bandwidth_floor_gbps;
      basis = "the " + gbps(*floor) + " floor of " + gpu->display_name() + " in the knowledge tables";
      evidence.push_back(gpu->model->source + ": host_bandwidth_floor_gbps " + gbps(*floor));
    } else if (gpu) {
      if (auto raw = pcie_gbps(gpu->link_speed_max, gpu->link_width_max)) {
        floor = *raw * k_host_link_fraction;
        basis = gbps(*floor) + ", 60 % of the " + gbps(*raw) + " its PCIe link (" +
                link_text(gpu->link_speed_max, gpu->link_width_max) + ") carries";
        evidence.push_back(gpu->source + ": max_link_speed " +
                           link_text(gpu->link_speed_max, gpu->link_width_max) + "; current " +
                           link_text(gpu->link_speed_current, gpu->link_width_current));
      }
    }
    if (!floor) {
      out.skip(subject,
               "Measured " + measured(tests) + "; sysfs gives no PCIe link for this GPU to judge it against");
      continue;
    }
    if (!slowest || *slowest < *floor)
      out.add(
          Status::warn, subject,
          "Pinned host copies reach " + measured(tests) + ", below " + basis +
              ". Check the link under load (lspci -vv: LnkSta), the slot, risers, and BIOS PCIe settings.",
          evidence);
    else
      out.pass(subject, "Pinned host copies reach " + measured(tests) + " (at least " + basis + ")",
               evidence);
  }
}

} // namespace

void probe_memory_bandwidth(const CheckContext& ctx, Results& out) {
  if (!skip_without_probes(ctx.facts, out)) return;
  for_each_run(ctx.facts, out, "memory-bandwidth", Status::warn,
               [&](const BackendProbes& b, const ProbeRun& run) { judge_memory(ctx.facts, b, run, out); });
}

void probe_host_bandwidth(const CheckContext& ctx, Results& out) {
  if (!skip_without_probes(ctx.facts, out)) return;
  for_each_run(ctx.facts, out, "host-bandwidth", Status::warn,
               [&](const BackendProbes& b, const ProbeRun& run) { judge_host(ctx.facts, b, run, out); });
}

} // namespace gpudoctor::checks
