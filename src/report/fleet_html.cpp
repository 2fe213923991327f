// The fleet as one page, ordered for triage: who fails what (a node × check grid, worst first), the nodes
// failing each check, then the drift tables with the odd ones out highlighted and folded, what agrees, and
// the nodes, each linked to its own report page where one is beside its input. Every string from a report is
// escaped (html::h).
#include "fleet/fleet_triage.hpp"
#include "report/fleet_render.hpp"
#include "report/html_page.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using html::h;

constexpr std::size_t k_names_in_cell = 50; // names in one cell; the rest are counted (JSON lists them all)
constexpr std::size_t k_names_open = 3;     // up to this many odd ones out are shown; more are folded
constexpr std::size_t k_grid_nodes = 100;   // rows of the node × check grid: the worst nodes
constexpr std::size_t k_grid_checks = 24;   // its columns: the checks failing on most nodes

// A node's name, a link to its own report page where one is beside its input.
std::string node_name(const FleetNode& n) {
  if (n.page.empty()) return h(n.name);
  return fmt::format("<a href=\"{}\">{}</a>", h(n.page), h(n.name));
}

std::string value_html(const FleetRow& row, const FleetValue& v) {
  if (v.absent) return "<span class=\"muted\">" + h(absent_text(row.group)) + "</span>";
  return v.value.empty() ? "<span class=\"muted\">\"\" (set, empty)</span>" : h(v.value);
}

// The odd ones out: a few named, more folded behind their count (<details>: no script).
std::string name_list(const Fleet& f, const std::vector<std::size_t>& nodes) {
  std::string out;
  std::size_t shown = std::min(nodes.size(), k_names_in_cell);
  for (std::size_t i = 0; i < shown; ++i)
    out += (i ? ", " : "") + node_name(f.nodes[nodes[i]]);
  if (shown < nodes.size()) out += fmt::format(" and {} more", nodes.size() - shown);
  if (nodes.size() <= k_names_open) return out;
  return fmt::format("<details><summary>{} nodes</summary>{}</details>", nodes.size(), out);
}

std::string bar(std::size_t count, std::size_t total) {
  double pct = total ? 100.0 * static_cast<double>(count) / static_cast<double>(total) : 0;
  return fmt::format("<div class=\"bar\"><span style=\"width:{:.1f}%\"></span></div>", pct);
}

std::string drift_tables(const Fleet& f) {
  std::string out, group;
  bool open = false;
  for (const auto& row : f.rows) {
    if (!row.drifts()) continue;
    if (row.group != group) {
      if (open) out += "</tbody></table>\n";
      out += "<h3>" + h(row.group) +
             "</h3>\n<table><thead><tr><th style=\"width:22%\">Property</th><th "
             "style=\"width:26%\">Value</th><th class=\"num\">Nodes</th><th style=\"width:12%\"></th><th>The "
             "odd ones "
             "out</th></tr></thead><tbody>";
      open = true;
      group = row.group;
    }
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      const FleetValue& v = row.values[i];
      bool odd = i > 0 || !row.has_majority();
      out += fmt::format("<tr{}>", odd ? " class=\"odd\"" : "");
      if (i == 0) out += fmt::format("<td rowspan=\"{}\"><b>{}</b></td>", row.values.size(), h(row.name));
      out += fmt::format("<td class=\"mono\">{}</td><td class=\"num\">{} of {}</td><td>{}</td><td "
                         "class=\"names\">{}</td></tr>",
                         value_html(row, v), v.nodes.size(), f.nodes.size(),
                         bar(v.nodes.size(), f.nodes.size()), odd ? name_list(f, v.nodes) : "");
    }
  }
  if (open) out += "</tbody></table>\n";
  if (out.empty()) return "<p class=\"muted\">Every node has the same value of every property.</p>\n";
  return out;
}

std::string hit_list(const Fleet& f, const std::vector<NodeHit>& hits) {
  std::string out;
  std::size_t shown = std::min(hits.size(), k_names_in_cell);
  for (std::size_t i = 0; i < shown; ++i) {
    std::string subjects;
    for (const auto& s : hits[i].subjects)
      if (!s.empty()) subjects += (subjects.empty() ? "" : ", ") + h(s);
    out += (i ? "; " : "") + node_name(f.nodes[hits[i].node]) +
           (subjects.empty() ? "" : " <span class=\"muted\">(" + subjects + ")</span>");
  }
  if (shown < hits.size()) out += fmt::format(" and {} more", hits.size() - shown);
  if (hits.size() <= k_names_open) return out;
  return fmt::format("<details><summary>{} nodes</summary>{}</details>", hits.size(), out);
}

// Who fails what: the worst nodes (rows) × the checks failing on most nodes (columns), each cell the node's
// worst status of that check.
std::string triage_grid(const Fleet& f) {
  Triage t = triage(f, k_grid_nodes);
  if (t.nodes.empty()) return "<p class=\"muted\">No node has an error or a warning.</p>\n";
  std::size_t columns = std::min(t.checks.size(), k_grid_checks);
  std::string head = "<th>Node</th><th class=\"num\">Errors</th><th class=\"num\">Warnings</th>";
  for (std::size_t c = 0; c < columns; ++c)
    head += fmt::format("<th class=\"vertical\"><span class=\"mono\">{}</span></th>",
                        h(f.checks[t.checks[c]].id));
  std::string rows;
  for (const auto& n : t.nodes) {
    rows += fmt::format(
        "<tr class=\"row-{}\"><td class=\"node\" title=\"{}\"><b>{}</b></td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td>",
        n.errors ? "error" : "warn", h(f.nodes[n.node].name), node_name(f.nodes[n.node]), n.errors,
        n.warnings);
    for (std::size_t c = 0; c < columns; ++c) {
      auto it = n.checks.find(t.checks[c]);
      bool error = it != n.checks.end() && it->second == Status::error;
      rows +=
          it == n.checks.end()
              ? "<td class=\"cell\"></td>"
              : fmt::format("<td class=\"cell\"><span class=\"mark {}\" title=\"{}\">{}</span></td>",
                            html::status_class(it->second), error ? "error" : "warning", error ? "✗" : "!");
    }
    rows += "</tr>";
  }
  std::string out = "<div class=\"scroll\">" + html::table(head, rows) + "</div>\n";
  if (t.more_nodes)
    out +=
        fmt::format("<p class=\"muted\">And {} more nodes with a problem: the table below names every node "
                    "failing each check.</p>\n",
                    t.more_nodes);
  if (t.checks.size() > columns)
    out += fmt::format("<p class=\"muted\">{} more checks fail on fewer nodes: see the table below.</p>\n",
                       t.checks.size() - columns);
  return out;
}

std::string failing(const Fleet& f) {
  std::string rows;
  for (const auto& c : f.checks) {
    for (auto [status, hits] : {std::pair{Status::error, &c.errors}, std::pair{Status::warn, &c.warnings}}) {
      if (hits->empty()) continue;
      rows += fmt::format("<tr class=\"row-{}\"><td>{}</td><td><b class=\"mono\">{}</b><br><span "
                          "class=\"muted\">{}</span></td>"
                          "<td class=\"num\">{} of {}</td><td>{}</td></tr>",
                          html::status_class(status), html::badge(status), h(c.id), h(c.title), hits->size(),
                          f.nodes.size(), hit_list(f, *hits));
    }
  }
  if (rows.empty()) return "<p class=\"muted\">No node has an error or a warning.</p>\n";
  return html::table("<th style=\"width:7em\">Status</th><th style=\"width:32%\">Check</th><th "
                     "class=\"num\">Nodes</th><th>Which (subjects)</th>",
                     rows);
}

std::string agreed(const Fleet& f) {
  std::string rows;
  for (const auto& row : f.rows)
    if (!row.drifts() && !row.values.empty())
      rows += fmt::format("<tr><td class=\"muted\">{}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
                          h(row.group), h(row.name), value_html(row, row.values[0]));
  if (rows.empty()) return "<p class=\"muted\">Nothing is the same on every node.</p>\n";
  return html::table("<th style=\"width:16%\">Group</th><th style=\"width:30%\">Property</th><th>Value</th>",
                     rows);
}

std::string nodes(const Fleet& f) {
  std::string rows;
  for (const auto& n : f.nodes) {
    int errors = n.counts[static_cast<int>(Status::error)], warns = n.counts[static_cast<int>(Status::warn)];
    std::string cls = errors ? " class=\"row-error\"" : warns ? " class=\"row-warn\"" : "";
    rows += fmt::format(
        "<tr{}><td><b>{}</b></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>"
        "<td>{}</td><td class=\"muted\">{}</td><td class=\"mono\">{}</td></tr>",
        cls, node_name(n), errors ? html::badge(Status::error) + " " + std::to_string(errors) : "0",
        warns ? html::badge(Status::warn) + " " + std::to_string(warns) : "0",
        n.gpus.empty() ? "no GPU" : h(n.gpus), h(n.tool_version), h(n.origin), h(n.input));
  }
  return html::table("<th>Node</th><th class=\"num\">Errors</th><th class=\"num\">Warnings</th><th>GPUs</th>"
                     "<th>gpudoctor</th><th>Read from</th><th>Input</th>",
                     rows);
}

std::string duplicates(const Fleet& f) {
  std::string rows;
  for (const auto& d : f.duplicates) {
    std::string why = d.why();
    std::string inputs;
    for (auto n : d.nodes)
      inputs += (inputs.empty() ? "" : "<br>") + h(f.nodes[n].input);
    rows += fmt::format("<tr><td><b>{}</b></td><td class=\"mono\">{}</td><td>{}</td></tr>", h(d.host), inputs,
                        why);
  }
  return html::table("<th>Host name</th><th>Inputs</th><th>What they are</th>", rows);
}

std::string unreadable(const Fleet& f) {
  std::string rows;
  for (const auto& u : f.unreadable)
    rows += fmt::format("<tr><td class=\"mono\">{}</td><td>{}</td></tr>", h(u.input), h(u.error));
  return html::table("<th>Input</th><th>Why it could not be read</th>", rows);
}

} // namespace

std::string render_fleet_html(const Fleet& f) {
  std::size_t errors = f.nodes_with(Status::error), warns = f.nodes_with(Status::warn),
              drifting = f.drifting_rows();
  html::Header header{"fleet", fmt::format("{} node{}", f.nodes.size(), f.nodes.size() == 1 ? "" : "s"), {}};
  header.meta.push_back(fmt::format("{} with errors · {} with warnings · {} of {} properties drift", errors,
                                    warns, drifting, f.rows.size()));
  std::string body;
  if (errors)
    body +=
        fmt::format("<p class=\"verdict error\">{} node{} with errors.</p>", errors, errors == 1 ? "" : "s");
  else if (warns || drifting)
    body += "<p class=\"verdict warn\">No node has an error; some differ or have warnings.</p>";
  else
    body += "<p class=\"verdict pass\">Every node agrees and none has a problem.</p>";
  body += "<div class=\"tiles\">" + html::tile(static_cast<long long>(f.nodes.size()), "nodes", "") +
          html::tile(static_cast<long long>(errors), "with errors", errors ? "error" : "") +
          html::tile(static_cast<long long>(warns), "with warnings", warns ? "warn" : "") +
          html::tile(static_cast<long long>(drifting), "properties drift", drifting ? "warn" : "pass");
  if (!f.unreadable.empty())
    body += html::tile(static_cast<long long>(f.unreadable.size()), "unreadable inputs", "error");
  body += "</div>\n";
  body += html::section("triage", "Who fails what, worst first", triage_grid(f));
  body += html::section("checks", "Nodes failing each check", failing(f));
  body += html::section("drift", "Drift: values × nodes, the odd ones out highlighted", drift_tables(f));
  body += html::section("same", "The same on every node", agreed(f));
  body += html::section("nodes", "Nodes", nodes(f));
  if (!f.duplicates.empty())
    body += html::section("duplicates", "One host name, several inputs", duplicates(f));
  if (!f.unreadable.empty()) body += html::section("unreadable", "Unreadable inputs", unreadable(f));
  return html::page(fmt::format("gpudoctor fleet: {} nodes", f.nodes.size()), header, body);
}

} // namespace gpudoctor
