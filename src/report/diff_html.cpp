// The diff as one page: the facts that changed (before, after), then the conclusions that changed.
#include "report/diff_render.hpp"
#include "report/html_page.hpp"

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using html::h;

std::string side(const char* label, const DiffSide& s) {
  return fmt::format("{} {} <span style=\"opacity:.75\">({}, gpudoctor {})</span>", label, h(s.input),
                     h(s.origin), h(s.tool_version));
}

std::string value_cell(const PropertyChange& c, const std::optional<std::string>& v) {
  if (!v) return "<span class=\"muted\">" + h(diff_value(c, v)) + "</span>";
  return h(diff_value(c, v));
}

std::string facts(const ReportDiff& d) {
  if (d.facts.empty()) return "<p class=\"muted\">No fact changed.</p>\n";
  std::string out, group;
  for (const auto& c : d.facts) {
    if (c.group != group) {
      if (!group.empty()) out += "</tbody></table>\n";
      out += "<h3>" + h(c.group) +
             "</h3>\n<table><thead><tr><th style=\"width:7em\"></th><th style=\"width:28%\">"
             "Property</th><th>Before</th><th>After</th></tr></thead><tbody>";
      group = c.group;
    }
    std::string change = !c.before  ? "<span class=\"badge add\">added</span>"
                         : !c.after ? "<span class=\"badge del\">removed</span>"
                                    : "<span class=\"badge chg\">changed</span>";
    out += fmt::format(
        "<tr><td>{}</td><td><b>{}</b></td><td class=\"mono\">{}</td><td class=\"mono\">{}</td></tr>", change,
        h(c.name), value_cell(c, c.before), value_cell(c, c.after));
  }
  return out + "</tbody></table>\n";
}

std::string results(const ReportDiff& d) {
  if (d.results.empty()) return "<p class=\"muted\">No conclusion changed.</p>\n";
  std::string rows;
  for (const auto& r : d.results) {
    Status now = r.after ? *r.after : *r.before;
    std::string change = !r.before ? "new" : !r.after ? "gone" : "was " + html::badge(*r.before);
    std::string where =
        h(r.id) + (r.subject.empty() ? "" : " · " + h(r.subject)) + (r.key.empty() ? "" : " · " + h(r.key));
    rows += fmt::format(
        "<tr class=\"row-{}\"><td>{}</td><td><b class=\"mono\">{}</b><br><span class=\"muted\">{}</span>"
        "</td><td>{}</td><td>{}</td></tr>",
        r.after ? html::status_class(now) : "skip",
        r.after ? html::badge(now) : "<span class=\"muted\">—</span>", where, h(r.title), change,
        h(r.message));
  }
  return html::table("<th style=\"width:7em\">Now</th><th style=\"width:30%\">Check</th>"
                     "<th style=\"width:9em\">Change</th><th>Message</th>",
                     rows);
}

} // namespace

std::string render_diff_html(const ReportDiff& d) {
  std::string host = d.before.host == d.after.host ? d.before.host : d.before.host + " / " + d.after.host;
  html::Header header{"diff", h(host), {side("before:", d.before), side("after:", d.after)}};
  std::string body =
      d.empty()
          ? "<p class=\"verdict pass\">Nothing changed.</p>"
          : fmt::format("<p class=\"verdict warn\">{} fact{} and {} result{} changed.</p>", d.facts.size(),
                        d.facts.size() == 1 ? "" : "s", d.results.size(), d.results.size() == 1 ? "" : "s");
  for (const auto& n : d.notes)
    body += "<p class=\"note\">" + h(n) + "</p>";
  const auto& a = d.after.counts;
  body +=
      "<div class=\"tiles\">" +
      html::tile(static_cast<long long>(d.facts.size()), "facts changed", d.facts.empty() ? "pass" : "warn") +
      html::tile(static_cast<long long>(d.results.size()), "results changed",
                 d.results.empty() ? "pass" : "warn") +
      html::tile(a[static_cast<int>(Status::error)], "errors now",
                 a[static_cast<int>(Status::error)] ? "error" : "") +
      html::tile(a[static_cast<int>(Status::warn)], "warnings now",
                 a[static_cast<int>(Status::warn)] ? "warn" : "") +
      "</div>\n";
  body += html::section("facts", "Facts that changed", facts(d));
  body += html::section("results", "Conclusions that changed", results(d));
  return html::page("gpudoctor diff: " + host, header, body);
}

} // namespace gpudoctor
