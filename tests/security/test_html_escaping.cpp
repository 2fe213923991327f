// Every output is safe for its reader (docs/security.md, "Outputs"): the HTML pages of `check`, a bundle,
// `fleet` and `diff`, made from hand-made facts, results and reports whose strings hold markup (a script, an
// event handler, a closing tag for the style sheet), quotes, terminal escapes and bytes that are not UTF-8.
// The judge below reads the page's markup itself (written independently of util/escape): every tag is one
// the renderers write, no attribute is an event handler, and the hostile text is still there to read.
#include "fleet/fleet.hpp"
#include "fleet/report_diff.hpp"
#include "report/diff_render.hpp"
#include "report/fleet_render.hpp"
#include "report/report.hpp"
#include "security/inert_text.hpp"
#include "util/escape.hpp"

#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

const std::string k_markup = "<script>document.title='PWNED'</script>\"><img src=x onerror=alert(1)>'"
                             "<svg onload=alert(2)></style><iframe src=javascript:alert(3)>&amp;&#60;";

std::string evil(const std::string& what) {
  return what + k_markup + security::k_hostile[0] + security::k_hostile[9];
}

// Tags the renderers write; anything else in a page came from a value.
const std::set<std::string> k_tags = {"!DOCTYPE", "html", "head",    "meta",   "title",      "style",  "body",
                                      "header",   "main", "footer",  "div",    "h1",         "h2",     "h3",
                                      "p",        "span", "b",       "br",     "code",       "ul",     "li",
                                      "dl",       "dt",   "dd",      "table",  "thead",      "tbody",  "tr",
                                      "th",       "td",   "section", "figure", "figcaption", "svg",    "rect",
                                      "line",     "text", "g",       "a",      "details",    "summary"};

// The first offence in a page's markup: a tag the renderers do not write, an attribute named on..., a
// <style> holding a '<' (a value that closed it), an unquoted attribute value, or a link with a scheme (a
// link goes to a place in the page or, on the fleet page, to a node's page by a relative path).
std::string markup_offence(const std::string& page) {
  for (std::size_t i = page.find('<'); i != std::string::npos; i = page.find('<', i + 1)) {
    std::size_t end = page.find('>', i);
    if (end == std::string::npos) return "an unclosed tag at " + std::to_string(i);
    std::string tag = page.substr(i + 1, end - i - 1);
    if (tag.starts_with("/")) tag = tag.substr(1);
    std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (!k_tags.contains(name)) return "a tag <" + name + "> at " + std::to_string(i);
    if (name == "style" && !page.substr(i, 7).starts_with("</")) {
      std::size_t close = page.find("</style>", end);
      if (close == std::string::npos || page.find('<', end) != close) return "markup inside <style>";
    }
    // Attributes: name="value" pairs; no event handler, every value quoted.
    std::size_t k = tag.find(' ');
    while (k != std::string::npos && k < tag.size()) {
      while (k < tag.size() && tag[k] == ' ')
        ++k;
      std::size_t eq = tag.find('=', k);
      if (eq == std::string::npos) break;
      std::string attr = tag.substr(k, eq - k);
      if (attr.starts_with("on") || attr.starts_with("ON")) return "an attribute " + attr;
      if (eq + 1 >= tag.size() || tag[eq + 1] != '"') return "an unquoted value of " + attr;
      std::size_t q = tag.find('"', eq + 2);
      if (q == std::string::npos) return "an unterminated value of " + attr;
      if (attr == "href" && tag.substr(eq + 2, q - eq - 2).find(':') != std::string::npos)
        return "a link with a scheme: " + tag.substr(eq + 2, q - eq - 2);
      k = q + 1;
    }
    i = end;
  }
  return "";
}

void judge(const std::string& page, const std::string& what) {
  CAPTURE(what);
  CHECK(markup_offence(page) == "");
  // The hostile text is shown, as text: escaped once, not lost and not escaped twice.
  CHECK(page.find("&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("&amp;amp;&amp;#60;") != std::string::npos);
  CHECK(security::first_offence(page, "\n") == "");
}

Report hostile_report() {
  Report report;
  report.source_kind = "snapshot";
  report.source_path = evil("/tmp/bundle");
  Facts& f = report.facts;
  f.hostname = evil("host");
  f.os.pretty_name = {evil("Ubuntu"), "file"};
  f.os.kernel_release = {evil("6.8"), "file"};
  Gpu gpu;
  gpu.bdf = evil("0000:01:00.0");
  gpu.vendor = Vendor::nvidia;
  gpu.pci_ids_name = evil("GeForce");
  gpu.driver = {evil("nvidia"), "link"};
  gpu.link_speed_current = evil("16 GT/s");
  f.gpus.push_back(gpu);
  f.probes.requested = true;
  BackendProbes b;
  b.backend = "cuda";
  for (int i = 0; i < 2; ++i) {
    ProbeDevice d;
    d.index = i;
    d.name = evil("H200");
    d.pci_bus_id = evil("0000:01:00.0");
    b.devices.push_back(d);
  }
  b.peers.push_back({0, 1, false});
  f.probes.backends.push_back(b);
  for (auto status : {Status::error, Status::warn, Status::info, Status::pass, Status::skip})
    report.results.push_back({evil("env.id"),
                              status,
                              evil("gpu0"),
                              evil("Title"),
                              evil("message"),
                              {evil("evidence")},
                              {evil("fix-id")}});
  return report;
}

NodeReport hostile_node(const std::string& host, const std::string& driver, Status status) {
  NodeReport n;
  n.host = host;
  n.input = evil("/reports/r.json");
  n.origin = evil("report");
  n.tool_version = evil("0.1");
  n.properties = {{301, evil("Driver"), evil("NVIDIA kernel module"), driver},
                  {201, "GPUs", "GPUs", evil("8 × H200")},
                  {801, "Environment", evil("NCCL_"), evil("value")}};
  n.results = {{evil("gpu.id"), evil("gpu0"), status, evil("title"), evil("message")}};
  return n;
}

} // namespace

TEST_SUITE("security") {

  TEST_CASE("html: a report page from hostile facts and results holds no markup but its own") {
    Catalogue cat;
    judge(render_html(hostile_report(), cat), "check --format html");
  }

  TEST_CASE("html: fleet and diff pages from hostile reports hold no markup but their own") {
    FleetBuilder builder(3);
    builder.add(0, hostile_node(evil("node-a"), evil("570"), Status::error));
    builder.add(1, hostile_node(evil("node-b"), evil("580"), Status::warn));
    builder.add(2, hostile_node(evil("node-b"), evil("580"), Status::pass));
    Fleet fleet = builder.finish();
    judge(render_fleet_html(fleet), "fleet --format html");
    // Each node linked to its own page by a path made from a hostile file name.
    for (auto& node : fleet.nodes)
      node.page = escape::url_path(evil("javascript:alert(4)//../") + node.input + ".html");
    judge(render_fleet_html(fleet), "fleet --format html, nodes linked to their pages");
    ReportDiff diff = diff_reports(hostile_node(evil("n"), evil("570"), Status::pass),
                                   hostile_node(evil("n"), evil("580"), Status::error));
    diff.notes.push_back(evil("note"));
    judge(render_diff_html(diff), "diff --format html");
  }

  TEST_CASE("html: the judge itself finds markup that a value brought in") {
    CHECK(markup_offence("<p>" + k_markup + "</p>") != "");
    CHECK(markup_offence("<p class=\"x\" onclick=\"y\">a</p>") == "an attribute onclick");
    CHECK(markup_offence("<p class=x>a</p>") == "an unquoted value of class");
    CHECK(markup_offence("<style>a</style><script>") == "a tag <script> at 16");
    CHECK(markup_offence("<style>a</style><p class=\"a\">b</p>") == "");
    CHECK(markup_offence("<a href=\"javascript:alert(1)\">a</a>") ==
          "a link with a scheme: javascript:alert(1)");
    CHECK(markup_offence("<a href=\"#r-1\">a</a><a href=\"n%3A1.html\">b</a>") == "");
  }

} // TEST_SUITE
