#include "report/html_links.hpp"

#include "report/html_page.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace gpudoctor::html {

namespace {

// The statuses in the page's order, each as its tile and its list's heading read it.
constexpr std::pair<Status, const char*> k_statuses[] = {{Status::error, "errors"},
                                                         {Status::warn, "warnings"},
                                                         {Status::info, "info"},
                                                         {Status::pass, "passed"},
                                                         {Status::skip, "skipped"}};

// The worst of a cell's results and the first of them, as positions in the report.
struct Cell {
  std::optional<Status> worst;
  std::size_t first = 0;
  void add(Status s, std::size_t index) {
    if (!worst || status_rank(s) < status_rank(*worst)) {
      worst = s;
      first = index;
    }
  }
  std::string html() const {
    if (!worst) return "<td class=\"cell none\"><span class=\"muted\">—</span></td>";
    return fmt::format("<td class=\"cell {}\"><a href=\"#{}\">{}</a></td>", status_class(*worst),
                       result_anchor(first), badge(*worst));
  }
};

// The ids the page names, in report order, once each.
std::vector<std::string> ids_of(const Report& report) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : report.results)
    if (seen.insert(r.id).second) out.push_back(r.id);
  return out;
}

std::vector<std::string> fixes_of(const Report& report) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : report.results)
    for (const auto& f : r.fixes)
      if (seen.insert(f).second) out.push_back(f);
  return out;
}

// An anchor named after a value (a check or fix id, which a hostile report may spell with any byte): the
// value percent-encoded, so that the link's fragment and the element's id are the same plain string.
std::string anchor(std::string_view kind, const std::string& value) {
  return fmt::format("{}-{}", kind, escape::url_path(value));
}

} // namespace

std::string result_anchor(std::size_t index) {
  return fmt::format("r-{}", index);
}

std::string id_link(const std::string& id) {
  return fmt::format("<a class=\"id\" href=\"#{}\">{}</a>", anchor("explain", id), h(id));
}

std::string fix_link(const std::string& fix) {
  return fmt::format("<a class=\"fix-link\" href=\"#{}\"><code>gpudoctor fix {}</code></a>",
                     anchor("fix", fix), h(fix));
}

std::string health_grid(const Report& report, const Catalogue& cat) {
  const auto& columns = health_columns();
  const Facts& f = report.facts;
  // Row 0 is the machine (results of the grid's checks with no subject); row i + 1 is GPU i.
  std::vector<std::vector<Cell>> rows(f.gpus.size() + 1, std::vector<Cell>(columns.size()));
  std::map<std::string, std::size_t> row_of;
  row_of[""] = 0;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    row_of[f.gpus[i].subject()] = i + 1;
  bool machine_row = false;
  for (std::size_t n = 0; n < report.results.size(); ++n) {
    const Result& r = report.results[n];
    const CatalogueEntry* e = cat.find(r.id);
    auto col = e ? health_column(e->health) : std::nullopt;
    auto row = row_of.find(r.subject);
    if (!col || row == row_of.end()) continue;
    rows[row->second][*col].add(r.status, n);
    machine_row = machine_row || row->second == 0;
  }
  if (f.gpus.empty()) return "<p class=\"muted\">No GPU on the PCI bus.</p>\n";
  std::string head = "<th>GPU</th>";
  for (const auto& c : columns)
    head += "<th>" + h(c.title) + "</th>";
  std::string body;
  auto row_html = [&](std::string_view id, const std::string& name, const std::vector<Cell>& cells) {
    body += fmt::format("<tr id=\"{}\"><td class=\"mono\">{}</td>", id, name);
    for (const auto& c : cells)
      body += c.html();
    body += "</tr>";
  };
  if (machine_row) row_html("gpu-all", "all GPUs (machine-wide)", rows[0]);
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    row_html(fmt::format("gpu-{}", f.gpus[i].index),
             h(f.gpus[i].subject()) + "<br><span class=\"muted\">" + h(f.gpus[i].display_name()) + "</span>",
             rows[i + 1]);
  return "<p class=\"muted\">The worst result of each GPU's checks, by what they look at; a cell links to "
         "the result, — where nothing was judged.</p>\n" +
         table(head, body);
}

std::string gpu_health_cell(const Report& report, const Gpu& gpu) {
  std::optional<Status> worst;
  const std::string subject = gpu.subject();
  for (const auto& r : report.results)
    if (r.subject == subject && r.status != Status::skip &&
        (!worst || status_rank(r.status) < status_rank(*worst)))
      worst = r.status;
  if (!worst) return "<span class=\"muted\">—</span>";
  return fmt::format("<a href=\"#gpu-{}\">{}</a>", gpu.index, badge(*worst));
}

std::string linked_tiles(const Summary& s) {
  // Errors and warnings are coloured only when there are some; skipped never.
  const std::pair<int, const char*> count_class[] = {{s.error, s.error ? "error" : ""},
                                                     {s.warn, s.warn ? "warn" : ""},
                                                     {s.info, "info"},
                                                     {s.pass, "pass"},
                                                     {s.skip, ""}};
  std::string out = "<div class=\"tiles\">";
  for (std::size_t i = 0; i < std::size(k_statuses); ++i) {
    auto [status, words] = k_statuses[i];
    auto [n, cls] = count_class[i];
    out += fmt::format("<a class=\"tile-link\" href=\"#status-{}\">{}</a>", status_class(status),
                       tile(n, words, cls));
  }
  return out + "</div>\n";
}

std::string status_lists(const Report& report) {
  std::string out;
  for (auto [st, words] : k_statuses) {
    std::string items;
    for (std::size_t n = 0; n < report.results.size(); ++n) {
      const Result& r = report.results[n];
      if (r.status != st) continue;
      std::string where =
          h(r.id) + (r.subject.empty() ? "" : " · " + h(r.subject)) + (r.key.empty() ? "" : " · " + h(r.key));
      items += fmt::format("<li><a href=\"#{}\">{}</a></li>", result_anchor(n), where);
    }
    out += fmt::format(
        "<div class=\"status-list\" id=\"status-{}\"><h3>{}</h3>{}</div>\n", status_class(st), words,
        items.empty() ? "<p class=\"muted\">none</p>" : "<ul class=\"mono\">" + items + "</ul>");
  }
  return out;
}

std::string explanations(const Report& report, const Catalogue& cat) {
  std::string out;
  for (const auto& id : ids_of(report)) {
    const CatalogueEntry* e = cat.find(id);
    if (!e) {
      out += fmt::format("<div class=\"explain\" id=\"{}\"><h3 class=\"mono\">{}</h3><p class=\"muted\">"
                         "Not in this gpudoctor's catalogue.</p></div>\n",
                         anchor("explain", id), h(id));
      continue;
    }
    std::string fixes;
    for (const auto& fix : e->fixes)
      fixes += " " + fix_link(fix);
    out +=
        fmt::format("<div class=\"explain\" id=\"{}\"><h3><span class=\"mono\">{}</span> · {}</h3>"
                    "<dl class=\"facts\"><dt>What it checks</dt><dd>{}</dd><dt>Why it matters</dt><dd>{}</dd>"
                    "<dt>How to fix it</dt><dd>{}{}</dd></dl></div>\n",
                    anchor("explain", e->id), h(e->id), h(e->title), h(e->what), h(e->why), h(e->fix), fixes);
  }
  return out;
}

std::string fix_descriptions(const Report& report, const Catalogue& cat) {
  std::vector<std::string> offered = fixes_of(report);
  std::set<std::string> named(offered.begin(), offered.end());
  for (const auto& id : ids_of(report)) // the fixes the explanations name too
    if (const CatalogueEntry* e = cat.find(id)) named.insert(e->fixes.begin(), e->fixes.end());
  if (named.empty()) return {};
  std::string out;
  for (const auto& fix : named) {
    const FixEntry* f = cat.find_fix(fix);
    out += fmt::format("<div class=\"explain\" id=\"{}\"><h3><code>gpudoctor fix {}</code>{}</h3><p>{}</p>"
                       "<p class=\"muted\"><code>gpudoctor fix {}</code> prints its bash script; "
                       "<code>--apply</code> runs it step by step (docs/fixes.md).</p></div>\n",
                       anchor("fix", fix), h(fix), f ? " · " + h(f->title) : "",
                       f ? h(f->description) : "Not in this gpudoctor's fix catalogue.", h(fix));
  }
  return out;
}

} // namespace gpudoctor::html
