#include "report/probe_chart_svg.hpp"

#include "checks/probe_common.hpp"
#include "report/html_page.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using html::h;

constexpr int k_chart_label_w = 240, k_bar_w = 520, k_value_w = 150, k_row_h = 22, k_gpu_gap = 14,
              k_chart_margin = 10;

struct Bar {
  std::string label; // "device memory", "host → GPU", "GPU → host"
  double gbps = 0;
  std::optional<double> floor;
};

struct GpuBars {
  std::string name; // "gpu0 (0000:19:00.0) NVIDIA H200"
  std::vector<Bar> bars;
};

std::optional<double> best_of(const std::vector<ProbeBandwidth>& list, int device, std::string_view test) {
  std::optional<double> out;
  for (const auto& b : list)
    if (b.device == device && (test.empty() || b.test == test) && b.best_gbps)
      out = std::max(out.value_or(0.0), *b.best_gbps);
  return out;
}

std::vector<GpuBars> collect(const Facts& f) {
  std::vector<GpuBars> out;
  for (const auto& b : f.probes.backends)
    for (const auto& d : b.devices) {
      const Gpu* gpu = checks::pci_gpu_of(f, d.pci_bus_id);
      GpuBars g{gpu ? gpu->subject() + " " + gpu->display_name()
                    : fmt::format("{} device {}", b.title(), d.index),
                {}};
      auto memory_floor = checks::memory_floor(gpu, d);
      auto host_floor = checks::host_floor(gpu);
      if (auto m = best_of(b.memory, d.index, ""))
        g.bars.push_back(
            {"device memory", *m, memory_floor ? std::optional(memory_floor->gbps) : std::nullopt});
      for (auto [test, label] :
           {std::pair{"h2d", "host → GPU (pinned)"}, std::pair{"d2h", "GPU → host (pinned)"}})
        if (auto v = best_of(b.host, d.index, test))
          g.bars.push_back({label, *v, host_floor ? std::optional(host_floor->gbps) : std::nullopt});
      if (!g.bars.empty()) out.push_back(std::move(g));
    }
  return out;
}

std::string gbps(double v) {
  return v >= 100 ? fmt::format("{:.0f} GB/s", v) : fmt::format("{:.1f} GB/s", v);
}

} // namespace

std::string probe_chart_svg(const Facts& f) {
  std::vector<GpuBars> gpus = collect(f);
  if (gpus.empty()) return {};
  int height = k_chart_margin;
  for (const auto& g : gpus)
    height += k_row_h * static_cast<int>(1 + g.bars.size()) + k_gpu_gap;
  const int width = k_chart_margin * 2 + k_chart_label_w + k_bar_w + k_value_w;
  std::string svg = fmt::format("<figure><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
                                "width=\"{0}\" height=\"{1}\" "
                                "role=\"img\" aria-label=\"probe bandwidths against their floors\" "
                                "font-family=\"DejaVu Sans, sans-serif\" "
                                "font-size=\"12\">",
                                width, height);
  int y = k_chart_margin;
  for (const auto& g : gpus) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"600\">{}</text>", k_chart_margin, y + 15,
                       h(g.name));
    y += k_row_h;
    for (const auto& b : g.bars) {
      // Each bar its own scale (device memory is ten times a host link): the larger of the figure and its
      // floor spans 80 % of the bar area, so the floor's mark and the gap to it read at a glance.
      const double top = std::max({b.gbps, b.floor.value_or(0.0), 1e-9}) / 0.8;
      auto x_of = [&](double v) {
        return k_chart_margin + k_chart_label_w + static_cast<int>(v / top * k_bar_w);
      };
      bool below = b.floor && b.gbps < *b.floor;
      svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#59636e\">{}</text>", k_chart_margin + 12, y + 15,
                         h(b.label));
      svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" rx=\"3\" fill=\"{}\"/>",
                         k_chart_margin + k_chart_label_w, y + 4,
                         std::max(1, x_of(b.gbps) - k_chart_margin - k_chart_label_w),
                         below ? "#cf222e" : "#1a7f37");
      if (b.floor)
        svg += fmt::format(
            "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#1f2328\" stroke-width=\"2\"/>",
            x_of(*b.floor), y + 1, y + 21);
      svg +=
          fmt::format("<text x=\"{}\" y=\"{}\">{}{}</text>", k_chart_margin + k_chart_label_w + k_bar_w + 6,
                      y + 15, gbps(b.gbps), b.floor ? fmt::format(" (floor {})", gbps(*b.floor)) : "");
      y += k_row_h;
    }
    y += k_gpu_gap;
  }
  svg += "</svg><figcaption>The best of each probe's runs, each bar on its own scale; the black mark is the "
         "floor its check judges it against (a red bar is below it).</figcaption></figure>\n";
  return svg;
}

} // namespace gpudoctor
