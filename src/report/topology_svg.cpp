#include "report/topology_svg.hpp"

#include "report/html_page.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using html::h;

// Geometry, in SVG units (the picture scales to the page's width).
constexpr int k_margin = 20, k_box_w = 176, k_box_h = 74, k_gap = 18;
constexpr int k_host_y = 16, k_host_h = 40, k_gpu_y = 140;
constexpr int k_cell_w = 64, k_cell_h = 28, k_label_w = 64;
// The link labels right of a GPU's link ("host→GPU 55.5 GB/s", 11px): the last GPU's must fit the picture.
constexpr int k_link_label_x = 6, k_link_label_w = 132;

struct GpuBox {
  const ProbeDevice* device = nullptr;
  const Gpu* pci = nullptr; // the PCI device of the same bus id, for its NUMA node and link
  int numa = -1;
  int x = 0;
};

const Gpu* pci_of(const Facts& f, const ProbeDevice& d) {
  std::string bus = text::lower(d.pci_bus_id);
  for (const auto& g : f.gpus)
    if (!bus.empty() && text::lower(g.bdf) == bus) return &g;
  return nullptr;
}

std::optional<double> best(const std::vector<ProbeBandwidth>& list, int device, int peer,
                           std::string_view test) {
  std::optional<double> out;
  for (const auto& b : list)
    if (b.device == device && (peer < 0 || b.peer == peer) && (test.empty() || b.test == test) && b.best_gbps)
      out = std::max(out.value_or(0.0), *b.best_gbps);
  return out;
}

std::string svg_gbps(double v) {
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

std::string short_name(const std::string& name) {
  // A box holds about 24 characters; the GPU table above the picture has the whole name.
  if (name.size() <= 24) return name;
  std::size_t cut = 23;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
    --cut;
  return name.substr(0, cut) + "…";
}

std::string text_at(int x, int y, std::string_view cls, const std::string& s,
                    std::string_view anchor = "start") {
  return fmt::format("<text x=\"{}\" y=\"{}\" class=\"{}\" text-anchor=\"{}\">{}</text>", x, y, cls, anchor,
                     h(s));
}

std::string host_boxes(const std::vector<GpuBox>& boxes) {
  std::map<int, std::pair<int, int>> span; // numa -> first and last x
  for (const auto& b : boxes) {
    auto [it, fresh] = span.try_emplace(b.numa, b.x, b.x);
    if (!fresh) it->second.second = b.x;
  }
  std::string out;
  for (const auto& [numa, xs] : span) {
    int x = xs.first, w = xs.second - xs.first + k_box_w;
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" class=\"host\"/>", x,
                       k_host_y, w, k_host_h);
    std::string label = numa >= 0 ? fmt::format("CPU · NUMA node {}", numa) : "CPU";
    out += text_at(x + w / 2, k_host_y + 25, "hl", label, "middle");
  }
  return out;
}

std::string svg_link_text(const Gpu* g) {
  if (!g || !g->link_speed_current) return "PCIe link unknown";
  std::string s = *g->link_speed_current;
  if (g->link_width_current) s += fmt::format(" x{}", *g->link_width_current);
  return s;
}

std::string gpu_box(const BackendProbes& b, const GpuBox& box) {
  const ProbeDevice& d = *box.device;
  int cx = box.x + k_box_w / 2;
  std::string out = fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" class=\"link\"/>", cx,
                                k_host_y + k_host_h, k_gpu_y);
  int lx = cx + k_link_label_x;
  out += text_at(lx, 78, "lt", svg_link_text(box.pci));
  if (auto h2d = best(b.host, d.index, -1, "h2d"))
    out += text_at(lx, 94, "lt", fmt::format("host→GPU {} GB/s", svg_gbps(*h2d)));
  if (auto d2h = best(b.host, d.index, -1, "d2h"))
    out += text_at(lx, 110, "lt", fmt::format("GPU→host {} GB/s", svg_gbps(*d2h)));
  out += fmt::format("<g><title>{}</title>", h(d.name + " " + d.pci_bus_id));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" class=\"gpu\"/>", box.x,
                     k_gpu_y, k_box_w, k_box_h);
  out += text_at(box.x + 12, k_gpu_y + 22, "gt", fmt::format("GPU {}", d.index));
  out += text_at(box.x + 12, k_gpu_y + 40, "gn", short_name(d.name));
  std::string detail = d.pci_bus_id;
  if (d.memory_bytes)
    detail += fmt::format(" · {:.0f} GiB", static_cast<double>(*d.memory_bytes) / (1ULL << 30));
  out += text_at(box.x + 12, k_gpu_y + 58, "gd", detail);
  return out + "</g>";
}

// Rows send, columns receive: the bandwidth measured, else whether the runtime allows access at all.
std::string p2p_matrix(const BackendProbes& b, int y) {
  std::string out = text_at(k_margin, y - 8, "lt", "peer to peer (rows send to columns, GB/s)");
  std::size_t n = b.devices.size();
  for (std::size_t i = 0; i < n; ++i) {
    int idx = b.devices[i].index;
    out += text_at(k_margin + k_label_w + static_cast<int>(i) * k_cell_w + k_cell_w / 2, y + 18, "hl",
                   fmt::format("GPU {}", idx), "middle");
    out += text_at(k_margin + k_label_w - 8, y + (static_cast<int>(i) + 1) * k_cell_h + 18, "hl",
                   fmt::format("GPU {}", idx), "end");
  }
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      int from = b.devices[r].index, to = b.devices[c].index;
      int x = k_margin + k_label_w + static_cast<int>(c) * k_cell_w,
          cy = y + (static_cast<int>(r) + 1) * k_cell_h;
      std::string cls = "na", label = "—";
      if (from != to) {
        auto access = std::find_if(b.peers.begin(), b.peers.end(),
                                   [&](const ProbePeerAccess& p) { return p.from == from && p.to == to; });
        auto bw = best(b.p2p, from, to, "");
        if (bw)
          cls = "ok", label = svg_gbps(*bw);
        else if (access != b.peers.end())
          cls = access->can_access ? "ok" : "no", label = access->can_access ? "yes" : "no P2P";
        else
          cls = "na", label = "?";
      }
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"c-{}\"/>", x, cy,
                         k_cell_w - 2, k_cell_h - 2, cls);
      out += text_at(x + k_cell_w / 2 - 1, cy + 18, "cv", label, "middle");
    }
  return out;
}

std::string figure(const Facts& f, const BackendProbes& b) {
  std::vector<GpuBox> boxes;
  for (const auto& d : b.devices) {
    GpuBox box{&d, pci_of(f, d), -1, 0};
    if (box.pci && box.pci->numa_node) box.numa = *box.pci->numa_node;
    boxes.push_back(box);
  }
  std::stable_sort(boxes.begin(), boxes.end(),
                   [](const GpuBox& a, const GpuBox& c) { return a.numa < c.numa; });
  int x = k_margin;
  for (auto& box : boxes) {
    box.x = x;
    x += k_box_w + k_gap;
  }
  int n = static_cast<int>(b.devices.size());
  int last_labels_end = x - k_gap - k_box_w / 2 + k_link_label_x + k_link_label_w;
  int width =
      std::max({x - k_gap + k_margin, last_labels_end + k_margin, k_margin * 2 + k_label_w + n * k_cell_w});
  int matrix_y = k_gpu_y + k_box_h + 44;
  int height = n > 1 ? matrix_y + (n + 1) * k_cell_h + k_margin : k_gpu_y + k_box_h + k_margin;
  std::string body = host_boxes(boxes);
  for (const auto& box : boxes)
    body += gpu_box(b, box);
  if (n > 1) body += p2p_matrix(b, matrix_y);
  std::string caption = fmt::format("{} runtime ({}): {} GPU{}, as the probes saw them.", b.title(),
                                    runtime_version_text(b.runtime_version), n, n == 1 ? "" : "s");
  return fmt::format(
      R"(<figure><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {0} {1}" width="{0}" height="{1}" role="img" aria-label="{2}">
<style>.host{{fill:#e8f0f8;stroke:#8fb8de}}.gpu{{fill:#fff;stroke:#0d1b2a;stroke-width:1.5}}.link{{stroke:#0d1b2a;stroke-width:3}}
text{{font-family:system-ui,"DejaVu Sans",sans-serif;fill:#1f2328}}.hl{{font-size:12px;font-weight:600}}.lt{{font-size:11px;fill:#59636e}}
.gt{{font-size:13px;font-weight:700}}.gn{{font-size:12px}}.gd{{font-size:11px;fill:#59636e}}.cv{{font-size:11px;font-weight:600}}
.c-ok{{fill:#dafbe1}}.c-no{{fill:#ffebe9}}.c-na{{fill:#eff2f5}}</style>
{3}</svg><figcaption>{2}</figcaption></figure>
)",
      width, height, h(caption), body);
}

} // namespace

std::string topology_svg(const Facts& f) {
  std::string out;
  for (const auto& b : f.probes.backends)
    if (!b.devices.empty()) out += figure(f, b);
  return out;
}

} // namespace gpudoctor
