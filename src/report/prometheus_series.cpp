#include "report/prometheus_series.hpp"

#include "report/program_formats.hpp"
#include "report/text_bounds.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace gpudoctor::prom {

std::string label(std::string_view value) {
  return escape::prometheus_label(bounded(escape::one_line(value), k_label_bytes));
}

void family(std::string& out, const char* name, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
}

std::string number(double value) {
  if (!std::isfinite(value)) return "NaN";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{:.0f}", value);
  return fmt::format("{}", value);
}

void series(std::string& out, const char* name, const std::string& labels, double value) {
  out += labels.empty() ? fmt::format("{} {}\n", name, number(value))
                        : fmt::format("{}{{{}}} {}\n", name, labels, number(value));
}

std::string GpuLabels::text() const {
  std::string out;
  auto add = [&](const char* name, const std::string& value) {
    if (value.empty()) return;
    if (!out.empty()) out += ",";
    out += fmt::format("{}=\"{}\"", name, label(value));
  };
  add("gpu", gpu);
  add("UUID", uuid);
  add("pci_bus_id", pci_bus_id);
  add("bdf", bdf);
  return out;
}

namespace {

// "0000:3b:00.0" -> "00000000:3B:00.0": the domain in 8 digits and upper case, as nvidia-smi and
// dcgm-exporter write it.
std::string dcgm_bus_id(const std::string& bdf) {
  auto colon = bdf.find(':');
  if (colon == std::string::npos) return {};
  std::string domain = bdf.substr(0, colon), rest = bdf.substr(colon);
  std::string out = std::string(domain.size() < 8 ? 8 - domain.size() : 0, '0') + domain + rest;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// The position of `gpu` among the GPUs of its vendor in `order` (a comparison of two GPUs).
template <class Less> int rank_among(const Facts& f, const Gpu& gpu, Less less) {
  int rank = 0;
  for (const auto& other : f.gpus)
    if (other.vendor == gpu.vendor && &other != &gpu && less(other, gpu)) ++rank;
  return rank;
}

std::string vendor_index(const Facts& f, const Gpu& gpu) {
  if (gpu.vendor == Vendor::nvidia) {
    if (const NvidiaSmiGpu* smi = f.smi_of(gpu))
      return std::to_string(smi - f.nvidia.smi_gpus.data()); // nvidia-smi's index is its order
    return std::to_string(rank_among(f, gpu, [](const Gpu& a, const Gpu& b) { return a.bdf < b.bdf; }));
  }
  if (gpu.vendor == Vendor::amd) {
    auto node = [](const Gpu& g) { return g.kfd ? g.kfd->node_id : 1 << 30; };
    return std::to_string(rank_among(f, gpu, [&](const Gpu& a, const Gpu& b) {
      return node(a) != node(b) ? node(a) < node(b) : a.bdf < b.bdf;
    }));
  }
  return std::to_string(gpu.index);
}

} // namespace

GpuLabelIndex gpu_labels(const Facts& f) {
  GpuLabelIndex index;
  std::vector<GpuLabels>& out = index.in_order;
  for (const auto& gpu : f.gpus) {
    GpuLabels l;
    l.gpu = vendor_index(f, gpu);
    l.bdf = gpu.bdf;
    l.pci_bus_id = dcgm_bus_id(gpu.bdf);
    if (const NvidiaSmiGpu* smi = f.smi_of(gpu)) {
      l.uuid = smi->uuid;
      if (!smi->bus_id.empty()) l.pci_bus_id = smi->bus_id;
    }
    out.push_back(std::move(l));
  }
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    index.by_subject.emplace(f.gpus[i].subject(), i);
    index.by_bdf.emplace(f.gpus[i].bdf, i);
  }
  return index;
}

const GpuLabels* GpuLabelIndex::subject(std::string_view s) const {
  auto it = by_subject.find(s);
  return s.empty() || it == by_subject.end() ? nullptr : &in_order[it->second];
}

const GpuLabels* GpuLabelIndex::bdf(std::string_view b) const {
  auto it = by_bdf.find(b);
  return b.empty() || it == by_bdf.end() ? nullptr : &in_order[it->second];
}

std::string joined(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "," + b;
}

} // namespace gpudoctor::prom
