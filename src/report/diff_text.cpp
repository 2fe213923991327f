// The diff for people: the facts that changed by group (before → after), then the conclusions.
#include "fleet/fleet.hpp"
#include "report/diff_render.hpp"
#include "report/term_style.hpp"
#include "util/escape.hpp"

#include <fmt/format.h>

namespace gpudoctor {

using escape::one_line;

std::string diff_value(const PropertyChange& change, const std::optional<std::string>& value) {
  if (!value) return absent_text(change.group);
  return value->empty() ? "\"\"" : *value;
}

namespace {

std::string side_line(const char* label, const DiffSide& s) {
  return fmt::format("  {} {} ({}, gpudoctor {})\n", label, one_line(s.input), one_line(s.origin),
                     one_line(s.tool_version));
}

void facts(const ReportDiff& d, const TermStyle& st, std::string& out) {
  out += "\n" + st.paint("1", "Facts") + "\n";
  if (d.facts.empty()) {
    out += "  no change\n";
    return;
  }
  std::string group;
  for (const auto& c : d.facts) {
    if (c.group != group) out += "  " + st.paint("1", one_line(c.group)) + "\n";
    group = c.group;
    std::string before = one_line(diff_value(c, c.before)), after = one_line(diff_value(c, c.after));
    std::string sign = !c.before ? st.paint("32", "+") : !c.after ? st.paint("31", "-") : st.paint("33", "~");
    out += fmt::format("    {} {}: {} → {}\n", sign, one_line(c.name), st.paint("2", before),
                       st.paint("1", after));
  }
}

void results(const ReportDiff& d, const TermStyle& st, std::string& out) {
  out += "\n" + st.paint("1", "Results") + "\n";
  if (d.results.empty()) {
    out += "  no change\n";
    return;
  }
  for (const auto& r : d.results) {
    std::string where = one_line(r.id) + (r.subject.empty() ? "" : " · " + one_line(r.subject)) +
                        (r.key.empty() ? "" : " · " + one_line(r.key));
    std::string what = !r.before ? "new" : !r.after ? "gone" : fmt::format("was {}", status_name(*r.before));
    Status shown = r.after ? *r.after : *r.before;
    out +=
        fmt::format("  {}  {}  {}\n", st.mark(shown), st.paint("1", where), st.paint("2", "(" + what + ")"));
    if (!r.message.empty()) out += "      " + one_line(r.message) + "\n";
  }
}

} // namespace

std::string render_diff_text(const ReportDiff& d, bool color) {
  TermStyle st{color};
  std::string host = d.before.host == d.after.host ? one_line(d.before.host)
                                                   : one_line(d.before.host) + " / " + one_line(d.after.host);
  std::string out = st.paint("1", "gpudoctor diff · " + host) + "\n";
  out += side_line("before:", d.before);
  out += side_line("after: ", d.after);
  for (const auto& n : d.notes)
    out += st.paint("33", "  note: " + one_line(n)) + "\n";
  facts(d, st, out);
  results(d, st, out);
  out += "\n";
  if (d.empty())
    out += st.paint("1;32", "Nothing changed.") + "\n";
  else
    out += fmt::format("{} fact{} and {} result{} changed.\n", d.facts.size(), d.facts.size() == 1 ? "" : "s",
                       d.results.size(), d.results.size() == 1 ? "" : "s");
  return out;
}

} // namespace gpudoctor
