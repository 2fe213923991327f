// The report as one page (`check --format html`, a bundle's report.html): the verdict and the counters, a
// health grid of the GPUs, per area the problems with evidence and fix commands, the machine, the GPUs, the
// probe figures against their floors and the topology where probes ran, what passed, then the results by
// status and inline the explanation of every check and fix named (html_links.hpp: every counter, id and fix
// is a link inside the page). Every string from the machine or a snapshot is escaped (html::h).
#include "report/gpu_coverage.hpp"
#include "report/html_links.hpp"
#include "report/html_page.hpp"
#include "report/probe_chart_svg.hpp"
#include "report/report.hpp"
#include "report/summary_lines.hpp"
#include "report/topology_svg.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using html::h;

std::string verdict(const Summary& s) {
  if (s.error > 0)
    return fmt::format(
        "<p class=\"verdict error\">{} error{} to fix: the GPU stack will not work as expected.</p>", s.error,
        s.error == 1 ? "" : "s");
  if (s.warn > 0)
    return fmt::format("<p class=\"verdict warn\">No error; {} warning{} worth a look.</p>", s.warn,
                       s.warn == 1 ? "" : "s");
  return "<p class=\"verdict pass\">No problems found.</p>";
}

std::string machine(const Facts& f) {
  std::string out = "<dl class=\"facts\">";
  for (const auto& [label, lines] : machine_summary(f)) {
    out += "<dt>" + h(label) + "</dt><dd>";
    for (std::size_t i = 0; i < lines.size(); ++i)
      out += (i ? "<br>" : "") + h(lines[i]);
    out += "</dd>";
  }
  return out + "</dl>\n";
}

std::string gib(std::optional<std::uint64_t> bytes) {
  return bytes ? fmt::format("{:.0f} GiB", static_cast<double>(*bytes) / (1ULL << 30)) : "";
}

std::string vram(const Facts& f, const Gpu& g) {
  if (g.model && g.model->vram_bytes) return gib(static_cast<std::uint64_t>(*g.model->vram_bytes));
  if (g.vram_bytes_sysfs) return gib(*g.vram_bytes_sysfs);
  for (const auto& s : f.nvidia.smi_gpus)
    if (s.memory_total_mib && s.bus_id.size() >= 12 && g.bdf.size() >= 12 &&
        std::equal(g.bdf.end() - 12, g.bdf.end(), s.bus_id.end() - 12, [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        }))
      return fmt::format("{:.0f} GiB", static_cast<double>(*s.memory_total_mib) / 1024.0);
  return "";
}

std::string link(const Gpu& g) {
  if (!g.link_speed_current) return "";
  std::string s = *g.link_speed_current;
  if (g.link_width_current) s += fmt::format(" x{}", *g.link_width_current);
  bool degraded = (g.link_speed_max && g.link_speed_max != g.link_speed_current) ||
                  (g.link_width_max && g.link_width_max != g.link_width_current);
  if (degraded)
    s += fmt::format(" (max {} x{})", g.link_speed_max.value_or("?"),
                     g.link_width_max ? std::to_string(*g.link_width_max) : "?");
  return s;
}

// MIG mode and devices, the BAR1 window and the NVLinks of an NVIDIA GPU, as nvidia-smi reports them; an AMD
// GPU's BAR0 (its VRAM aperture).
std::string gpu_extras(const Facts& f, const Gpu& g) {
  if (g.vendor == Vendor::amd && g.vram_bar_bytes)
    return h(fmt::format("BAR0 {} MiB", *g.vram_bar_bytes >> 20));
  const NvidiaSmiGpu* s = g.vendor == Vendor::nvidia ? f.smi_of(g) : nullptr;
  if (!s) return "";
  std::vector<std::string> parts;
  if (!s->mig_current.empty()) {
    std::string mig = "MIG " + std::string(s->mig_current == "Enabled" ? "on" : "off");
    if (s->mig_current == "Enabled" && s->mig_devices) mig += fmt::format(" ({} devices)", *s->mig_devices);
    if (!s->mig_pending.empty() && s->mig_pending != s->mig_current)
      mig += fmt::format(", {} pending", s->mig_pending == "Enabled" ? "on" : "off");
    parts.push_back(mig);
  }
  if (s->bar1_total_mib) parts.push_back(fmt::format("BAR1 {} MiB", *s->bar1_total_mib));
  for (const auto& n : f.nvidia.nvlink)
    if (!n.links.empty() && !s->uuid.empty() && n.uuid == s->uuid)
      parts.push_back(fmt::format("NVLink {}/{} active", std::ranges::count_if(n.links, &NvlinkLink::active),
                                  n.links.size()));
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : "<br>") + h(p);
  return out;
}

std::string gpu_table(const Report& report) {
  const Facts& f = report.facts;
  if (f.gpus.empty()) return "<p class=\"muted\">No GPU on the PCI bus.</p>\n";
  std::string rows;
  for (const auto& g : f.gpus) {
    std::string driver = g.driver ? h(*g.driver) : "<span class=\"badge error\">none bound</span>";
    rows += fmt::format(
        "<tr><td>{}</td><td class=\"mono\">{}</td><td>{}</td><td class=\"mono\">{}</td><td>{}</td>"
        "<td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
        g.index, h(g.bdf), h(g.display_name()), h(g.arch()), driver, h(vram(f, g)), h(link(g)),
        gpu_extras(f, g), g.numa_node ? std::to_string(*g.numa_node) : "", html::gpu_health_cell(report, g));
  }
  return html::table(
      "<th>#</th><th>PCI address</th><th>Model</th><th>Architecture</th><th>Driver</th>"
      "<th class=\"num\">Memory</th><th>PCIe link</th><th>MIG, BAR1, NVLink</th><th class=\"num\">NUMA</th>"
      "<th>Health</th>",
      rows);
}

std::string result_card(const Report& report, const Result& r, const Catalogue& cat) {
  std::string where = html::id_link(r.id) + (r.subject.empty() ? "" : " · " + h(r.subject)) +
                      (r.key.empty() ? "" : " · " + h(r.key));
  std::string out = fmt::format(
      "<div class=\"result {}\" id=\"{}\"><div class=\"head\">{}<span class=\"title\">{}</span>"
      "<span class=\"where mono\">{}</span></div><p>{}</p>",
      html::status_class(r.status), html::result_anchor(static_cast<std::size_t>(&r - report.results.data())),
      html::badge(r.status), h(r.title), where, h(r.message));
  if (!r.evidence.empty()) {
    out += "<ul class=\"evidence mono\">";
    for (const auto& e : r.evidence)
      out += "<li>" + h(e) + "</li>";
    out += "</ul>";
  }
  for (const auto& fix : r.fixes) {
    const FixEntry* entry = cat.find_fix(fix);
    out += fmt::format("<div class=\"fix\">Fix: {}{}</div>", html::fix_link(fix),
                       entry ? " <span class=\"muted\">" + h(entry->title) + "</span>" : "");
  }
  if (r.action)
    out += r.action->kind == Action::Kind::command
               ? fmt::format("<div class=\"fix\">Run: <code>{}</code></div>", h(r.action->text))
               : fmt::format("<div class=\"fix\">To do: {}</div>", h(r.action->text));
  return out + "</div>\n";
}

using ByArea = std::map<std::string, std::vector<const Result*>>;

ByArea by_area(const std::vector<Result>& results, const Catalogue& cat, bool problems) {
  ByArea out;
  for (const auto& r : results) {
    bool problem = r.status == Status::error || r.status == Status::warn || r.status == Status::info;
    if (problem != problems) continue;
    const CatalogueEntry* e = cat.find(r.id);
    out[e ? e->area : "tools"].push_back(&r);
  }
  for (auto& [area, list] : out)
    std::stable_sort(list.begin(), list.end(), [](const Result* a, const Result* b) {
      return status_rank(a->status) < status_rank(b->status);
    });
  return out;
}

std::string problems(const Report& report, const Catalogue& cat) {
  ByArea areas = by_area(report.results, cat, true);
  if (areas.empty())
    return "<p class=\"muted\">Nothing to report: every check passed or did not apply.</p>\n";
  std::string out;
  for (const auto& area : area_order())
    if (auto it = areas.find(area); it != areas.end()) {
      out += "<h3>" + h(area_title(area)) + "</h3>\n";
      for (const Result* r : it->second)
        out += result_card(report, *r, cat);
    }
  return out;
}

std::string passed(const Report& report, const Catalogue& cat) {
  ByArea areas = by_area(report.results, cat, false);
  std::string out;
  for (const auto& area : area_order()) {
    auto it = areas.find(area);
    if (it == areas.end()) continue;
    out += "<h3>" + h(area_title(area)) + "</h3>\n<table><tbody>";
    for (const Result* r : it->second)
      out += fmt::format("<tr id=\"{}\"><td style=\"width:7em\">{}</td><td class=\"mono\" "
                         "style=\"width:30%\">{}{}</td><td>{}</td></tr>",
                         html::result_anchor(static_cast<std::size_t>(r - report.results.data())),
                         html::badge(r->status), html::id_link(r->id),
                         r->subject.empty() ? "" : " · " + h(r->subject), h(r->message));
    out += "</tbody></table>\n";
  }
  return out;
}

} // namespace

std::string render_html(const Report& report, const Catalogue& cat) {
  const Facts& f = report.facts;
  Summary s = summarize(report.results);
  html::Header header{"report", h(f.hostname.empty() ? "unnamed host" : f.hostname), {}};
  std::string system;
  if (f.os.pretty_name) system += h(*f.os.pretty_name);
  if (f.os.kernel_release)
    system += (system.empty() ? "" : " · ") + std::string("kernel ") + h(*f.os.kernel_release);
  if (!system.empty()) header.meta.push_back(system);
  header.meta.push_back(report.source_kind == "live" ? "judged on the machine itself"
                                                     : "judged from the snapshot " + h(report.source_path));
  if (std::string covers = gpu_coverage_text(report); !covers.empty()) header.meta.push_back(h(covers));
  std::string body = verdict(s) + html::linked_tiles(s);
  if (!f.gpus.empty()) body += html::section("health", "GPU health", html::health_grid(report, cat));
  body += html::section("problems", "Problems and notes, by area", problems(report, cat));
  body += html::section("machine", "Machine", machine(f));
  body += html::section("gpus", "GPUs", gpu_table(report));
  if (std::string chart = probe_chart_svg(f); !chart.empty())
    body += html::section("probe-figures", "Probe figures against their floors", chart);
  if (std::string topo = topology_svg(f); !topo.empty())
    body += html::section("topology", "GPU topology", topo);
  body += html::section("passed", "Passed and not applicable", passed(report, cat));
  body += html::section("by-status", "Results by status", html::status_lists(report));
  body += html::section("explanations", "What each check looks at", html::explanations(report, cat));
  if (std::string fixes = html::fix_descriptions(report, cat); !fixes.empty())
    body += html::section("fixes", "Fixes", fixes);
  std::string title = fmt::format("gpudoctor report: {}", f.hostname.empty() ? "unnamed host" : f.hostname);
  return html::page(title, header, body);
}

} // namespace gpudoctor
