// probe.runtime-devices: the devices the CUDA and HIP runtimes see, against the GPUs of their vendor on the
// PCI bus (bound to the compute driver), by PCI bus id.
#include "checks/common.hpp"
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string device_line(const Facts& f, const BackendProbes& b, const ProbeDevice& d) {
  std::string s = fmt::format("cmd {}: device {} {} {}", b.run("devices")->key, d.index, d.name, d.arch);
  if (!d.pci_bus_id.empty()) s += fmt::format(" at {}", d.pci_bus_id);
  if (const Gpu* gpu = pci_gpu_of(f, d.pci_bus_id)) s += fmt::format(" (gpu{})", gpu->index);
  return s;
}

void judge_devices(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  const Vendor vendor = vendor_of(b);
  const std::string subject = runtime_subject(b);
  std::vector<const Gpu*> pci;
  // --gpus showed the runtime the chosen GPUs only: those are the ones it must see.
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == vendor && has_compute_driver(gpu) && shown_to_probes(f, gpu) &&
        !mig_without_devices(f, gpu)) // CUDA sees nothing there by design: gpu.mig says so
      pci.push_back(&gpu);
  const std::string on_bus = f.probes.chosen_gpus.empty() ? "on the PCI bus" : "chosen with --gpus";
  const std::string vendor_gpus =
      fmt::format("{} {} GPU{}", pci.size(), vendor_name(vendor), pci.size() == 1 ? "" : "s");
  std::vector<std::string> evidence;
  for (const auto& e : run.errors)
    evidence.push_back(error_evidence(run, e));
  for (const auto& d : b.devices)
    evidence.push_back(device_line(f, b, d));
  const int seen = b.device_count.value_or(0);
  std::string runtime_said = b.count_error ? fmt::format(": {}", error_text(*b.count_error)) : std::string();

  if (b.runtime_too_new()) {
    const std::string runtime = runtime_version_text(b.runtime_version),
                      driver = runtime_version_text(b.driver_version);
    evidence.push_back(fmt::format("cmd {}: probes' runtime {}, driver {}", run.key, runtime, driver));
    return out.add(Status::skip, subject,
                   fmt::format("The {} probes were built with {}, newer than this driver runs ({}), so they "
                               "cannot count devices. Install a CUDA toolkit this driver supports and run "
                               "gpudoctor probe again: it compiles the probes with it.",
                               b.title(), runtime, driver),
                   evidence);
  }
  if (pci.empty()) {
    std::string msg =
        fmt::format("The {} runtime sees {} device{}{}; there is no {} GPU with its driver on the "
                    "PCI bus, so none is missing.",
                    b.title(), seen, seen == 1 ? "" : "s", runtime_said, vendor_name(vendor));
    if (seen > 0) return out.pass(subject, msg, evidence);
    // The other vendor's GPUs are here: this runtime has nothing to find (Ubuntu installs HIP's runtime
    // beside OpenMPI on NVIDIA machines). With no GPU at all, the runtime's words are worth showing.
    Vendor other = vendor == Vendor::nvidia ? Vendor::amd : Vendor::nvidia;
    if (f.count(other) > 0) return out.add(Status::skip, subject, msg, evidence);
    return out.add_titled(Status::info, subject,
                          fmt::format("The {} runtime on a machine without its GPUs", b.title()), msg,
                          evidence);
  }
  // Which PCI GPUs the runtime lacks, by bus id (a runtime without bus ids: by count).
  std::vector<std::string> missing;
  for (const Gpu* gpu : pci) {
    bool found = false;
    for (const auto& d : b.devices)
      found = found || pci_gpu_of(f, d.pci_bus_id) == gpu;
    if (!found) missing.push_back(gpu->subject());
  }
  bool have_bus_ids =
      !b.devices.empty() && std::all_of(b.devices.begin(), b.devices.end(),
                                        [](const ProbeDevice& d) { return !d.pci_bus_id.empty(); });
  if (!have_bus_ids && seen >= static_cast<int>(pci.size())) missing.clear();
  if (missing.empty())
    return out.pass(subject,
                    fmt::format("The {} runtime sees {} {} {}", b.title(), pci.size() == 1 ? "the" : "all",
                                vendor_gpus, on_bus),
                    evidence);

  auto vars = visibility_vars(f, vendor);
  for (const Gpu* gpu : pci)
    evidence.push_back(gpu_evidence(*gpu));
  std::string msg = fmt::format("The {} runtime sees {} of the {} {}{}; missing: {}.", b.title(), seen,
                                vendor_gpus, on_bus, runtime_said, text::join(missing, ", "));
  if (!vars.empty()) {
    evidence.insert(evidence.end(), vars.begin(), vars.end());
    return out.add_titled(Status::info, subject, "A device-selection variable hides GPUs from the runtime",
                          fmt::format("{} A device-selection variable is set and explains it.", msg),
                          evidence);
  }
  out.add(
      Status::error, subject,
      fmt::format("{} Programs using {} will not see {}: look at the driver's messages (dmesg), the device "
                  "nodes and the checks above.",
                  msg, b.title(), missing.size() == 1 ? "it" : "them"),
      evidence);
}

} // namespace

void probe_runtime_devices(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!skip_without_probes(f, out)) return;
  for (const auto& b : f.probes.backends) {
    const bool vendor_gpus = f.count(vendor_of(b)) > 0;
    const ProbeRun* run = b.run("devices");
    if (!b.unavailable.empty() || !run) {
      std::string why = fmt::format("no {} probes: {}", b.title(), b.unavailable);
      out.skip(runtime_subject(b),
               vendor_gpus ? why : fmt::format("{} (no {} GPU here)", why, vendor_name(vendor_of(b))));
    } else if (run->timed_out) {
      out.skip(runtime_subject(b), "the devices probe timed out (see probe.timeout)");
    } else if (auto trouble = run_trouble(*run)) {
      // Without a GPU of its vendor a runtime that cannot even start (no ROCm on an NVIDIA machine) is no
      // news.
      out.add(vendor_gpus ? Status::error : Status::skip, runtime_subject(b),
              fmt::format("The {} devices probe {}", b.title(), *trouble), {run_evidence(*run)});
    } else {
      judge_devices(f, b, *run, out);
    }
  }
  if (out.items().empty()) out.skip("", "no probe output");
}

} // namespace gpudoctor::checks
