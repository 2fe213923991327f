// `nvidia-smi topo -m`: a header of device columns ("GPU0 GPU1 NIC0 CPU Affinity NUMA Affinity GPU NUMA ID"),
// one row per device, then an optional legend. The real tool separates cells with tabs (and prints one
// empty cell too many before "GPU NUMA ID"); copies in documents use spaces. Cells never contain spaces, so
// rows are read as whitespace-separated tokens.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_devices = 4096;

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return detail::is_digit(c); });
}

// The affinity columns of the header, in order: "CPU Affinity", "NUMA Affinity", "GPU NUMA ID".
enum class Extra { cpu, numa, gpu_numa };

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  for (std::string_view t = detail::next_token(line, pos); !t.empty(); t = detail::next_token(line, pos))
    out.push_back(t);
  return out;
}

// A header: tokens up to the first affinity label are the device columns, GPU0 among them.
bool header(const std::vector<std::string_view>& t, std::vector<std::string>& devices,
            std::vector<Extra>& extras) {
  std::vector<std::string> cols;
  std::size_t i = 0;
  for (; i < t.size() && cols.size() < k_max_devices; ++i) {
    if (t[i] == "CPU" || t[i] == "NUMA" || t[i] == "GPU") break;
    cols.emplace_back(t[i]);
  }
  if (std::find(cols.begin(), cols.end(), "GPU0") == cols.end()) return false;
  std::vector<Extra> ex;
  for (; i + 1 < t.size(); ++i) {
    if (t[i] == "CPU" && t[i + 1] == "Affinity")
      ex.push_back(Extra::cpu);
    else if (t[i] == "NUMA" && t[i + 1] == "Affinity")
      ex.push_back(Extra::numa);
    else if (t[i] == "GPU" && t[i + 1] == "NUMA")
      ex.push_back(Extra::gpu_numa);
  }
  devices = std::move(cols);
  extras = std::move(ex);
  return true;
}

} // namespace

TopoLink topo_link(std::string_view cell, int* nvlinks) {
  cell = detail::trim_view(cell);
  if (cell == "X") return TopoLink::self;
  if (cell.starts_with("NV") && is_digits(cell.substr(2))) {
    if (nvlinks) {
      auto n = text::to_int(cell.substr(2));
      *nvlinks = n && *n < 1'000'000 ? static_cast<int>(*n) : 0;
    }
    return TopoLink::nvlink;
  }
  if (cell == "PIX") return TopoLink::pix;
  if (cell == "PXB") return TopoLink::pxb;
  if (cell == "PHB") return TopoLink::phb;
  if (cell == "NODE") return TopoLink::node;
  if (cell == "SYS" || cell == "SOC") return TopoLink::sys;
  return TopoLink::unknown;
}

std::string NvidiaTopo::link(std::string_view a, std::string_view b) const {
  auto col = std::find(devices.begin(), devices.end(), b);
  if (col == devices.end()) return {};
  auto i = static_cast<std::size_t>(col - devices.begin());
  for (const auto& r : rows)
    if (r.device == a) return i < r.links.size() ? r.links[i] : std::string();
  return {};
}

std::vector<std::string> NvidiaTopo::gpus() const {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (r.device.starts_with("GPU") && is_digits(std::string_view(r.device).substr(3)))
      out.push_back(r.device);
  return out;
}

std::optional<NvidiaTopo> nvidia_smi_topo(std::string_view raw) {
  // A terminal run underlines the header ("\x1b[4mGPU0\tGPU1...\x1b[0m").
  std::string text = text::strip_ansi(raw);
  NvidiaTopo out;
  std::vector<Extra> extras;
  bool in_matrix = false, nic_legend = false;
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    if (t.empty()) return;
    if (t == "NIC Legend:") {
      nic_legend = true;
      return;
    }
    if (nic_legend) { // "  NIC0: mlx5_0"
      std::size_t colon = t.find(':');
      if (colon != std::string_view::npos && t.starts_with("NIC"))
        out.nic_names[std::string(t.substr(0, colon))] = std::string(detail::trim_view(t.substr(colon + 1)));
      return;
    }
    auto tok = tokens(t);
    if (out.devices.empty()) {
      in_matrix = header(tok, out.devices, extras);
      return;
    }
    if (!in_matrix) return;
    if (t.starts_with("Legend")) {
      in_matrix = false;
      return;
    }
    if (std::find(out.devices.begin(), out.devices.end(), tok.front()) == out.devices.end()) return;
    NvidiaTopoRow row{.device = std::string(tok.front())};
    std::size_t i = 1;
    for (; i < tok.size() && row.links.size() < out.devices.size(); ++i)
      row.links.emplace_back(tok[i]);
    for (std::size_t e = 0; e < extras.size() && i < tok.size(); ++e, ++i) {
      std::string& dst = extras[e] == Extra::cpu    ? row.cpu_affinity
                         : extras[e] == Extra::numa ? row.numa_affinity
                                                    : row.gpu_numa_id;
      dst = std::string(tok[i]);
    }
    if (out.rows.size() < k_max_devices) out.rows.push_back(std::move(row));
  });
  if (out.devices.empty()) return std::nullopt;
  return out;
}

std::vector<std::pair<int, int>> cpu_list(std::string_view text) {
  std::vector<std::pair<int, int>> out;
  text = detail::trim_view(text);
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view part = detail::trim_view(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    std::size_t dash = part.find('-');
    std::string_view lo = part.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
    if (!is_digits(lo) || !is_digits(hi) || lo.size() > 7 || hi.size() > 7) return {};
    int a = static_cast<int>(*text::to_int(lo)), b = static_cast<int>(*text::to_int(hi));
    if (b < a) return {};
    out.emplace_back(a, b);
  }
  return out;
}

} // namespace gpudoctor::parse
