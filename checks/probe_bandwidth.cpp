// probe.memory-bandwidth: device memory bandwidth (best of copy, triad and the runtime's copy) against the
// model's floor in the knowledge tables. probe.host-bandwidth: pinned host <-> device copies against what the
// GPU's PCIe link carries (sysfs max speed x width), or the model's host floor where the tables give one.
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// Pinned copies reach 75-90 % of a PCIe link's raw rate; below this fraction something is off (a link
// trained below its maximum, a slot of an older generation, a switch or IOMMU in the way).
constexpr double k_host_link_fraction = 0.6;
// Stream-style copies reach 80-93 % of the peak a device's memory clock and bus width give (an H200 here:
// 88 %, docs/probes.md). Where the tables hold no floor for a model, this fraction of that peak is one.
constexpr double k_memory_peak_fraction = 0.7;

} // namespace

std::optional<BandwidthFloor> memory_floor(const Gpu* gpu, const ProbeDevice& d) {
  if (gpu && gpu->model && gpu->model->memory_bandwidth_floor_gbps)
    return BandwidthFloor{*gpu->model->memory_bandwidth_floor_gbps,
                          fmt::format("{}: memory_bandwidth_floor_gbps {}", gpu->model->source,
                                      gbps(*gpu->model->memory_bandwidth_floor_gbps)),
                          true};
  if (!d.peak_gbps()) return std::nullopt;
  return BandwidthFloor{k_memory_peak_fraction * *d.peak_gbps(),
                        fmt::format("memory clock x bus width give a peak of {}; the floor is 70 % of it",
                                    gbps(*d.peak_gbps())),
                        false};
}

std::optional<BandwidthFloor> host_floor(const Gpu* gpu) {
  if (!gpu) return std::nullopt;
  if (gpu->model && gpu->model->host_bandwidth_floor_gbps)
    return BandwidthFloor{*gpu->model->host_bandwidth_floor_gbps,
                          fmt::format("the {} floor of {} in the knowledge tables",
                                      gbps(*gpu->model->host_bandwidth_floor_gbps), gpu->display_name()),
                          true};
  auto raw = pcie_gbps(gpu->link_speed_max, gpu->link_width_max);
  if (!raw) return std::nullopt;
  return BandwidthFloor{*raw * k_host_link_fraction,
                        fmt::format("{}, 60 % of the {} its PCIe link ({}) carries",
                                    gbps(*raw * k_host_link_fraction), gbps(*raw),
                                    link_text(gpu->link_speed_max, gpu->link_width_max)),
                        false};
}

namespace {

std::vector<const ProbeBandwidth*> for_device(const std::vector<ProbeBandwidth>& all, int device) {
  std::vector<const ProbeBandwidth*> out;
  for (const auto& b : all)
    if (b.device == device) out.push_back(&b);
  return out;
}

std::string measured(const std::vector<const ProbeBandwidth*>& tests) {
  std::vector<std::string> parts;
  for (const auto* t : tests)
    parts.push_back(fmt::format("{} {}", t->test, t->best_gbps ? gbps(*t->best_gbps) : "not measured"));
  return text::join(parts, ", ");
}

std::vector<std::string> evidence_of(const ProbeRun& run, const std::vector<const ProbeBandwidth*>& tests) {
  std::vector<std::string> out;
  for (const auto* t : tests) {
    out.push_back(fmt::format("cmd {}: {} best {}, median {} over {} runs of {} MiB, {}", run.key, t->test,
                              t->best_gbps ? gbps(*t->best_gbps) : "-",
                              t->median_gbps ? gbps(*t->median_gbps) : "-", t->iterations, t->bytes >> 20,
                              t->verified ? "verified" : "NOT verified"));
  }
  return out;
}

// Adds an error and returns true when a transfer's data came back wrong.
bool wrong_data(const std::string& subject, const ProbeRun& run,
                const std::vector<const ProbeBandwidth*>& tests, Results& out) {
  std::vector<std::string> bad;
  for (const auto* t : tests)
    if (!t->verified)
      bad.push_back(t->mismatches ? fmt::format("{} ({} wrong values)", t->test, t->mismatches) : t->test);
  if (bad.empty()) return false;
  out.add(
      Status::error, subject,
      fmt::format("Data copied by the probe came back wrong: {}. Memory or link errors: check ECC counters "
                  "and dmesg (NVRM Xid 48/63/64/79, amdgpu RAS).",
                  text::join(bad, ", ")),
      evidence_of(run, tests));
  return true;
}

// The device's tests in `all`; empty, with a warning or an error said, when it has none or their data came
// back wrong.
std::vector<const ProbeBandwidth*> judged_tests(const std::vector<ProbeBandwidth>& all, const ProbeDevice& d,
                                                const std::string& subject, const ProbeRun& run,
                                                const char* unmeasured, Results& out) {
  auto tests = for_device(all, d.index);
  if (tests.empty()) {
    out.add(Status::warn, subject, unmeasured, failure_evidence(run, d.index));
    return {};
  }
  if (wrong_data(subject, run, tests, out)) return {};
  return tests;
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
    auto tests = judged_tests(b.memory, d, subject, run,
                              "The memory bandwidth of this device could not be measured", out);
    if (tests.empty()) continue;
    auto best = best_of(tests);
    auto evidence = evidence_of(run, tests);
    const Gpu* gpu = pci_gpu_of(f, d.pci_bus_id);
    std::string peak = d.peak_gbps()
                           ? fmt::format("; the runtime's memory clock and bus width give a peak of {}",
                                         gbps(*d.peak_gbps()))
                           : std::string();
    const std::string name = gpu ? gpu->display_name() : d.name;
    auto found = memory_floor(gpu, d);
    if (!found) {
      out.skip(subject,
               fmt::format("Measured {}; neither the knowledge tables nor the runtime (memory clock, "
                           "bus width) give a floor for {} to judge it against",
                           measured(tests), name));
      continue;
    }
    double floor = found->gbps;
    evidence.push_back(found->from_tables ? found->basis
                                          : fmt::format("cmd probe-devices@{}: {} (no floor for {} in the "
                                                        "knowledge tables)",
                                                        b.backend, found->basis, name));
    if (!best || *best < floor)
      out.add(
          Status::warn, subject,
          fmt::format("Device memory moves {}, below the {} a healthy {} reaches{}. Look for throttling "
                      "(clocks, power, temperature: nvidia-smi -q -d PERFORMANCE / amd-smi metric), other "
                      "work on the GPU, or degraded memory (ECC).",
                      best ? gbps(*best) : "nothing measurable", gbps(floor), name, peak),
          evidence);
    else
      out.pass(subject, fmt::format("Device memory moves {} (floor {})", gbps(*best), gbps(floor)), evidence);
  }
}

void judge_host(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  for (const auto& d : b.devices) {
    const std::string subject = device_subject(f, b, d.index);
    auto tests = judged_tests(b.host, d, subject, run, "Host to device bandwidth could not be measured", out);
    if (tests.empty()) continue;
    std::optional<double> slowest;
    for (const auto* t : tests)
      if (t->best_gbps) slowest = std::min(slowest.value_or(*t->best_gbps), *t->best_gbps);
    auto evidence = evidence_of(run, tests);
    const Gpu* gpu = pci_gpu_of(f, d.pci_bus_id);
    auto found = host_floor(gpu);
    if (found && found->from_tables)
      evidence.push_back(
          fmt::format("{}: host_bandwidth_floor_gbps {}", gpu->model->source, gbps(found->gbps)));
    else if (found)
      evidence.push_back(fmt::format("{}: max_link_speed {}; current {}", gpu->source,
                                     link_text(gpu->link_speed_max, gpu->link_width_max),
                                     link_text(gpu->link_speed_current, gpu->link_width_current)));
    std::optional<double> floor = found ? std::optional<double>(found->gbps) : std::nullopt;
    std::string basis = found ? found->basis : "";
    if (!floor) {
      out.skip(subject, fmt::format("Measured {}; sysfs gives no PCIe link for this GPU to judge it against",
                                    measured(tests)));
      continue;
    }
    if (!slowest || *slowest < *floor)
      out.add(Status::warn, subject,
              fmt::format(
                  "Pinned host copies reach {}, below {}. Check the link under load (lspci -vv: LnkSta), the "
                  "slot, risers, and BIOS PCIe settings.",
                  measured(tests), basis),
              evidence);
    else
      out.pass(subject, fmt::format("Pinned host copies reach {} (at least {})", measured(tests), basis),
               evidence);
  }
}

} // namespace

void probe_memory_bandwidth(const CheckContext& ctx, Results& out) {
  for_each_run(ctx.facts, out, "memory-bandwidth", Status::warn, judge_memory);
}

void probe_host_bandwidth(const CheckContext& ctx, Results& out) {
  for_each_run(ctx.facts, out, "host-bandwidth", Status::warn, judge_host);
}

} // namespace gpudoctor::checks
