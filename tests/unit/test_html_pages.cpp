// The HTML pages: self-contained (nothing to load, nothing to run), the parts each must show, the
// topology picture from probe facts, the odd ones out highlighted. (Loading them in a browser:
// tests/e2e/html_pages.sh; hostile values: tests/security/test_html_escaping.cpp.)
#include "engine/catalogue.hpp"
#include "fleet/fleet.hpp"
#include "fleet/report_diff.hpp"
#include "fleet_fixtures.hpp"
#include "report/diff_render.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"
#include "report/topology_svg.hpp"
#include "util/escape.hpp"

#include <fstream>
#include <set>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto at = s.find(part); at != std::string::npos; at = s.find(part, at + 1))
    ++n;
  return n;
}

// The values of every `NAME="..."` attribute in the page, in order.
std::vector<std::string> attributes(const std::string& page, const std::string& name) {
  std::vector<std::string> out;
  const std::string key = " " + name + "=\"";
  for (auto at = page.find(key); at != std::string::npos; at = page.find(key, at + 1)) {
    auto start = at + key.size();
    out.push_back(page.substr(start, page.find('"', start) - start));
  }
  return out;
}

// Nothing in the page can fetch or run anything: no script, no source, no CSS import or url(), and a link
// only to a place in the page itself.
void self_contained(const std::string& page) {
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(page.find("Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"") !=
        std::string::npos);
  for (const char* loader : {"<script", "src=", "url(", "@import", "<link", "<img", "<iframe", "<object"})
    CHECK_MESSAGE(page.find(loader) == std::string::npos, loader);
  for (const auto& target : attributes(page, "href"))
    CHECK_MESSAGE(target.starts_with("#"), target);
}

// Every link of the page leads to an element of the page, and no two elements share an id.
void links_resolve(const std::string& page) {
  std::set<std::string> ids;
  for (const auto& id : attributes(page, "id"))
    CHECK_MESSAGE(ids.insert(id).second, "two elements have the id " << id);
  for (const auto& target : attributes(page, "href"))
    CHECK_MESSAGE(ids.contains(target.substr(1)), "nothing in the page is " << target);
}

// The part of the page from the element with this id to the end of that element's first child text.
std::string element(const std::string& page, const std::string& id, const std::string& until) {
  auto at = page.find("id=\"" + id + "\"");
  REQUIRE_MESSAGE(at != std::string::npos, id);
  return page.substr(at, page.find(until, at) - at);
}

Report judged(const std::string& machine) {
  Report r = judged_machine(machine);
  r.source_kind = "snapshot";
  r.source_path = machine;
  return r;
}

} // namespace

TEST_CASE("html: the report page of a machine with probes: verdict, problems, GPU table, topology") {
  Report r = judged("probe-amd-2gpu-no-p2p");
  std::string page = render_html(r, loaded_data().cat);
  self_contained(page);
  CHECK(page.find("<title>gpudoctor report: mi210-node07</title>") != std::string::npos);
  CHECK(page.find("7 warnings worth a look") != std::string::npos);
  // Problems by area, with evidence and fix commands.
  CHECK(count(page, "<div class=\"result warn\" id=\"r-") == 7);
  CHECK(page.find("GPUs cannot reach each other directly") != std::string::npos);
  CHECK(page.find("<ul class=\"evidence mono\"><li>cmd probe-p2p@hip") != std::string::npos);
  // The GPU table, one row a GPU.
  CHECK(page.find("<td class=\"mono\">0000:63:00.0</td><td>AMD Instinct MI210</td>") != std::string::npos);
  CHECK(page.find("<td class=\"mono\">0000:e3:00.0</td><td>AMD Instinct MI210</td>") != std::string::npos);
  // The topology: both GPUs under their own NUMA node, P2P refused both ways (and a second picture, the
  // probe figures against their floors).
  CHECK(count(page, "<svg ") == 2);
  CHECK(page.find("CPU · NUMA node 0") != std::string::npos);
  CHECK(page.find("CPU · NUMA node 1") != std::string::npos);
  CHECK(count(page, ">no P2P</text>") == 2);
  CHECK(page.find("host→GPU 24.9 GB/s") != std::string::npos);
}

TEST_CASE("html: the GPU table shows MIG, BAR1 and NVLink as nvidia-smi reports them") {
  std::string mig = render_html(judged("nvidia-a100-mig-instances-healthy"), loaded_data().cat);
  CHECK(mig.find("<th>MIG, BAR1, NVLink</th>") != std::string::npos);
  CHECK(mig.find("<td>MIG on (4 devices)<br>BAR1 131072 MiB</td>") != std::string::npos);
  std::string links = render_html(judged("nvidia-v100-nvlink-inactive"), loaded_data().cat);
  CHECK(count(links, "NVLink 6/6 active") == 3);
  CHECK(count(links, "NVLink 4/6 active") == 2);
  CHECK(count(links, "NVLink 5/6 active") == 2);
}

TEST_CASE("html: fix commands appear with the fix's title; a machine without probes has no topology") {
  std::string page = render_html(judged("amd-to-nvidia-leftovers"), loaded_data().cat);
  self_contained(page);
  CHECK(page.find("<div class=\"fix\">Fix: <a class=\"fix-link\" href=\"#fix-") != std::string::npos);
  CHECK(page.find("id=\"topology\"") == std::string::npos);
}

TEST_CASE("html: the P2P matrix shows measured bandwidths, allowed and refused access") {
  Facts f;
  for (int i = 0; i < 4; ++i) {
    Gpu g;
    g.index = i;
    g.bdf = "0000:0" + std::to_string(i) + ":00.0";
    g.numa_node = i / 2;
    f.gpus.push_back(g);
  }
  BackendProbes b;
  b.backend = "cuda";
  for (int i = 0; i < 4; ++i) {
    ProbeDevice d;
    d.index = i;
    d.name = "NVIDIA H200";
    d.pci_bus_id = f.gpus[static_cast<std::size_t>(i)].bdf;
    b.devices.push_back(d);
  }
  for (int from = 0; from < 4; ++from)
    for (int to = 0; to < 4; ++to)
      if (from != to) b.peers.push_back({from, to, from / 2 == to / 2});
  ProbeBandwidth bw;
  bw.device = 0;
  bw.peer = 1;
  bw.test = "peer";
  bw.best_gbps = 391.7;
  b.p2p.push_back(bw);
  f.probes.backends.push_back(b);
  std::string svg = topology_svg(f);
  CHECK(count(svg, "class=\"host\"") == 2); // NUMA nodes 0 and 1
  CHECK(count(svg, "class=\"gpu\"") == 4);
  CHECK(count(svg, ">392</text>") == 1); // measured: 0 -> 1
  CHECK(count(svg, ">yes</text>") == 3); // allowed, not measured: 1->0, 2->3, 3->2
  CHECK(count(svg, ">no P2P</text>") == 8);
  CHECK(topology_svg(Facts{}).empty());
}

TEST_CASE(
    "html: the fleet page highlights the odd ones out; the diff page marks what was added and removed") {
  FleetBuilder builder(3);
  builder.add(0, hand_node("a", "a.json", {{"Driver", "NVIDIA kernel module", "580"}}));
  builder.add(1, hand_node("b", "b.json", {{"Driver", "NVIDIA kernel module", "580"}}));
  builder.add(2, hand_node("c", "c.json", {{"Driver", "NVIDIA kernel module", "570"}}));
  std::string page = render_fleet_html(builder.finish());
  self_contained(page);
  CHECK(count(page, "<tr class=\"odd\">") == 1);
  CHECK(page.find("<tr class=\"odd\"><td class=\"mono\">570</td><td class=\"num\">1 of 3</td>") !=
        std::string::npos);

  NodeReport before =
      hand_node("n", "a.json", {{"Driver", "NVIDIA kernel module", "570"}, {"Environment", "X", "1"}});
  NodeReport after =
      hand_node("n", "b.json", {{"Driver", "NVIDIA kernel module", "580"}, {"Environment", "Y", "2"}});
  std::string diff = render_diff_html(diff_reports(before, after));
  self_contained(diff);
  CHECK(count(diff, "badge add") == 1);
  CHECK(count(diff, "badge del") == 1);
  CHECK(count(diff, "badge chg") == 1);
  CHECK(diff.find("3 facts and 0 results changed") != std::string::npos);
}

TEST_CASE("html: the topology picture holds its labels (the last GPU's link labels are not cut off)") {
  // The H200 machine: one GPU, its PCIe link and host copy bandwidths written to the right of its link.
  Report r = judged("nvidia-h200-real");
  std::string svg = topology_svg(r.facts);
  REQUIRE_FALSE(svg.empty());
  auto number_after = [&](const std::string& key, std::size_t from) {
    auto at = svg.find(key, from);
    REQUIRE(at != std::string::npos);
    return std::stoi(svg.substr(at + key.size()));
  };
  auto view = svg.find("viewBox=\"0 0 ");
  REQUIRE(view != std::string::npos);
  int width = std::stoi(svg.substr(view + 13));
  std::size_t labels = 0;
  for (auto at = svg.find("<text x=\""); at != std::string::npos; at = svg.find("<text x=\"", at + 1)) {
    auto tag_end = svg.find('>', at), close = svg.find("</text>", at);
    std::string tag = svg.substr(at, tag_end - at);
    if (tag.find("class=\"lt\"") == std::string::npos || tag.find("anchor=\"start\"") == std::string::npos)
      continue;
    ++labels;
    // Every character of these 11px labels is at most 7 units wide (DejaVu Sans averages 6.3).
    std::size_t chars = 0;
    for (std::size_t i = tag_end + 1; i < close; ++i)
      chars += (static_cast<unsigned char>(svg[i]) & 0xC0) != 0x80;
    int x = number_after("<text x=\"", at);
    CHECK_MESSAGE(x + static_cast<int>(chars) * 7 <= width, svg.substr(tag_end + 1, close - tag_end - 1));
  }
  CHECK(labels == 3); // link, host→GPU, GPU→host
}

TEST_CASE("html: every counter, check id and fix on the check page is a link that resolves inside the page") {
  // A multi-GPU machine with a failing GPU: the HGX H200 board (8 GPUs, Fabric Manager's version differs
  // from the driver's) whose GPU 0000:3a:00.0 fell off the bus this boot (Xid 79 in the kernel log).
  TempDir dir;
  std::filesystem::copy(machine_dir("nvidia-hgx-h200-fabric-manager-mismatch") / "snapshot", dir.path(),
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::copy_symlinks);
  {
    std::ofstream dmesg(dir.path() / "cmd" / "2-dmesg.out", std::ios::app);
    dmesg << "[ 4100.000000] NVRM: Xid (PCI:0000:3a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen "
             "off the bus.\n";
  }
  Report r = judged_snapshot(dir.path());
  const Catalogue& cat = loaded_data().cat;
  std::string page = render_html(r, cat);
  self_contained(page);
  links_resolve(page);

  // The counters: each tile is a link to the list of its results, and that list links each result's card.
  for (const char* status : {"error", "warn", "info", "pass", "skip"})
    CHECK_MESSAGE(page.find(fmt::format("<a class=\"tile-link\" href=\"#status-{}\">", status)) !=
                      std::string::npos,
                  status);
  std::string errors = element(page, "status-error", "</div>");
  std::size_t error_results = 0;
  for (std::size_t n = 0; n < r.results.size(); ++n) {
    const Result& result = r.results[n];
    if (result.status == Status::error) {
      ++error_results;
      CHECK(errors.find(fmt::format("href=\"#r-{}\"", n)) != std::string::npos);
    }
    // Each check id is a link to its explanation, which says what the catalogue says.
    CHECK(page.find(fmt::format("<a class=\"id\" href=\"#explain-{0}\">{0}</a>", result.id)) !=
          std::string::npos);
    const CatalogueEntry* entry = cat.find(result.id);
    REQUIRE_MESSAGE(entry != nullptr, result.id);
    CHECK(element(page, "explain-" + result.id, "</dl>").find(escape::html(entry->what)) !=
          std::string::npos);
    // Each fix is a link to its description from fixes/catalogue.yaml and its command.
    for (const auto& fix : result.fixes) {
      CHECK(page.find(fmt::format("href=\"#fix-{}\"", fix)) != std::string::npos);
      const FixEntry* f = cat.find_fix(fix);
      REQUIRE_MESSAGE(f != nullptr, fix);
      std::string described = element(page, "fix-" + fix, "</div>");
      CHECK(described.find(escape::html(f->description)) != std::string::npos);
      CHECK(described.find("<code>gpudoctor fix " + fix + "</code>") != std::string::npos);
    }
  }
  REQUIRE(error_results >= 2); // the lost GPU's and Fabric Manager's
  CHECK(count(errors, "<li>") == error_results);

  // The health grid: the lost GPU's kernel-log cell is an error linked to its result; the other seven GPUs'
  // kernel-log cells are not; the GPU table's health column says error for it alone.
  const Gpu* lost = nullptr;
  for (const auto& g : r.facts.gpus)
    if (g.bdf == "0000:3a:00.0") lost = &g;
  REQUIRE(lost != nullptr);
  REQUIRE(r.facts.gpus.size() == 8);
  auto kernel_log = health_column("kernel-log");
  REQUIRE(kernel_log);
  std::size_t column = *kernel_log;
  for (const auto& g : r.facts.gpus) {
    std::string row = element(page, fmt::format("gpu-{}", g.index), "</tr>");
    std::vector<std::string> cells;
    for (auto at = row.find("<td class=\"cell"); at != std::string::npos;
         at = row.find("<td class=\"cell", at + 1))
      cells.push_back(row.substr(at, row.find("</td>", at) - at));
    REQUIRE(cells.size() == health_columns().size());
    bool error = cells[column].find("cell error") != std::string::npos;
    CHECK_MESSAGE(error == (&g == lost), g.bdf);
    if (&g == lost) CHECK(cells[column].find("href=\"#r-") != std::string::npos);
  }
  CHECK(count(page, fmt::format("<a href=\"#gpu-{}\"><span class=\"badge error\">", lost->index)) == 1);
  CHECK(count(page, "<a href=\"#gpu-") == 8);
}

TEST_CASE("html: probe figures are drawn against their floors, a figure below its floor in red") {
  std::string slow = render_html(judged("probe-nvidia-rtx3090-slow"), loaded_data().cat);
  std::string healthy = render_html(judged("probe-nvidia-rtx3090-healthy"), loaded_data().cat);
  for (const std::string* page : {&slow, &healthy}) {
    self_contained(*page);
    links_resolve(*page);
    REQUIRE(page->find("aria-label=\"probe bandwidths against their floors\"") != std::string::npos);
    CHECK(page->find(" (floor ") != std::string::npos);
  }
  CHECK(slow.find("fill=\"#cf222e\"") != std::string::npos);
  CHECK(healthy.find("fill=\"#cf222e\"") == std::string::npos);
}
