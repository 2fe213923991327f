// Internal to the Prometheus renderer (report_prometheus.cpp, prometheus_gauges.cpp): how a family and a
// series are written, and the labels that tie a series to a GPU as the exporters clusters already run write
// them (docs/fleet.md, "Prometheus"), so that a dashboard joins gpudoctor's series with theirs.
#pragma once

#include "report/report.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::prom {

// A label value from the machine or a snapshot: one line, bounded (k_label_bytes), quoted for the format.
std::string label(std::string_view value);

// "# HELP" and "# TYPE NAME gauge": every family gpudoctor writes is a gauge (counts that reset or roll over,
// a driver reload, the kernel's ring buffer, are not counters: rate() would read a drop as a reset).
void family(std::string& out, const char* name, const char* help);

// A sample value: integral values without a fraction, others in the shortest form that reads back the same.
std::string number(double value);

// One series: `name{labels} value`, the labels given as `a="x",b="y"` (empty: none).
void series(std::string& out, const char* name, const std::string& labels, double value);

// The labels of one GPU: `gpu` is the index its vendor's tool gives it (nvidia-smi's order; for AMD, the
// order of the KFD nodes, which amd-smi and the HIP runtime follow), `UUID` nvidia-smi's (AMD: none),
// `pci_bus_id` as dcgm-exporter writes it ("00000000:3B:00.0"), `bdf` as sysfs names it ("0000:3b:00.0").
struct GpuLabels {
  std::string gpu, uuid, pci_bus_id, bdf;
  // `gpu="0",UUID="GPU-...",pci_bus_id="00000000:3B:00.0",bdf="0000:3b:00.0"` (an empty one left out).
  std::string text() const;
};

// Every GPU's labels, found by its results' subject ("gpu0 (0000:01:00.0)") and by its sysfs address.
struct GpuLabelIndex {
  std::vector<GpuLabels> in_order;                                    // Facts::gpus' order
  std::map<std::string, std::size_t, std::less<>> by_subject, by_bdf; // positions in in_order
  const GpuLabels* subject(std::string_view s) const;
  const GpuLabels* bdf(std::string_view b) const;
};
GpuLabelIndex gpu_labels(const Facts& f);

// `a,b` of two label lists, either possibly empty.
std::string joined(const std::string& a, const std::string& b);

// The measured values: GPU health counters, sensors, PCIe links and Xid counts (prometheus_gauges.cpp).
void measurements(std::string& out, const Facts& f, const GpuLabelIndex& gpus);
// Where the probes ran: the bandwidths they measured, with the floors the probe checks judge them against.
void probe_figures(std::string& out, const Facts& f, const GpuLabelIndex& gpus);

} // namespace gpudoctor::prom
