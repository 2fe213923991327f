// The text report, for people: what the machine is, then per area the problems first with what to do;
// what passed only with -v. Colour only when asked (a terminal without NO_COLOR). Every string that comes
// from the machine or a snapshot is escaped (util/escape) before it is painted: the only escape sequences
// in the output are the report's own colours.
#include "report/gpu_coverage.hpp"
#include "report/report.hpp"
#include "report/summary_lines.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <map>

namespace gpudoctor {

namespace {

struct Style {
  bool color;
  std::string paint(const std::string& code, const std::string& s) const {
    return color ? "\033[" + code + "m" + s + "\033[0m" : s;
  }
};

std::string mark(Status s, const Style& st) {
  switch (s) {
  case Status::error:
    return st.paint("1;31", "✗ error");
  case Status::warn:
    return st.paint("1;33", "! warn ");
  case Status::info:
    return st.paint("36", "i info ");
  case Status::pass:
    return st.paint("32", "✓ pass ");
  case Status::skip:
    return st.paint("2", "- skip ");
  }
  return "?";
}

using escape::one_line;

void render_result(const Result& r, const Catalogue& cat, const Style& st, std::string& out) {
  std::string where = one_line(r.id) + (r.subject.empty() ? "" : " · " + one_line(r.subject));
  if (r.status == Status::pass || r.status == Status::skip) {
    // The catalogue titles name problems; for what passed, the message says what was found.
    out += "  " + mark(r.status, st) + "  " + where + ": " + st.paint("2", one_line(r.message)) + "\n";
    return;
  }
  out += "  " + mark(r.status, st) + "  " + st.paint("1", one_line(r.title));
  out += st.paint("2", "  [" + where + "]") + "\n";
  out += "      " + one_line(r.message) + "\n";
  for (const auto& e : r.evidence)
    out += st.paint("2", "      · " + one_line(e)) + "\n";
  for (const auto& fix : r.fixes) {
    const FixEntry* f = cat.find_fix(fix);
    out += "      → " + st.paint("1", "gpudoctor fix " + one_line(fix)) +
           (f ? " (" + one_line(f->title) + ")" : std::string()) + "\n";
  }
  if (r.action)
    out += "      → " +
           (r.action->kind == Action::Kind::command ? "run: " + st.paint("1", one_line(r.action->text))
                                                    : one_line(r.action->text)) +
           "\n";
}

} // namespace

std::string render_text(const Report& report, const Catalogue& cat, const TextOptions& opt) {
  Style st{opt.color};
  std::string out;
  const Facts& f = report.facts;
  std::string head = "gpudoctor " GPUDOCTOR_VERSION;
  if (!f.hostname.empty()) head += " · " + one_line(f.hostname);
  if (f.os.pretty_name) head += " · " + one_line(*f.os.pretty_name);
  if (f.os.kernel_release) head += " · kernel " + one_line(*f.os.kernel_release);
  if (report.source_kind != "live") head += " · from snapshot " + one_line(report.source_path);
  out += st.paint("1", head) + "\n";
  if (std::string covers = gpu_coverage_text(report); !covers.empty())
    out += st.paint("1", "Covers") + " " + one_line(covers) + "\n";
  out += "\n";

  out += st.paint("1", "Machine") + "\n";
  for (const auto& [label, lines] : machine_summary(f)) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string name = i == 0 ? label : "";
      name.resize(12, ' ');
      out += "  " + st.paint("2", name) + one_line(lines[i]) + "\n";
    }
  }

  std::map<std::string, std::vector<const Result*>> by_area;
  for (const auto& r : report.results) {
    if (!opt.verbose && (r.status == Status::pass || r.status == Status::skip)) continue;
    const CatalogueEntry* e = cat.find(r.id);
    by_area[e ? e->area : "tools"].push_back(&r);
  }
  for (const auto& area : area_order()) {
    auto it = by_area.find(area);
    if (it == by_area.end()) continue;
    auto& list = it->second;
    std::stable_sort(list.begin(), list.end(), [](const Result* a, const Result* b) {
      return status_rank(a->status) < status_rank(b->status);
    });
    out += "\n" + st.paint("1", area_title(area)) + "\n";
    for (const Result* r : list)
      render_result(*r, cat, st, out);
  }

  Summary s = summarize(report.results);
  out += "\n";
  if (s.error == 0 && s.warn == 0) out += st.paint("1;32", "No problems found.") + " ";
  out += std::to_string(s.error) + " error" + (s.error == 1 ? "" : "s") + ", " + std::to_string(s.warn) +
         " warning" + (s.warn == 1 ? "" : "s") + ", " + std::to_string(s.info) + " info, " +
         std::to_string(s.pass) + " passed, " + std::to_string(s.skip) + " skipped";
  if (!opt.verbose) out += " (-v lists them all)";
  out += ".\n";
  if (s.error + s.warn > 0) out += "`gpudoctor explain ID` says what a check looks at and why.\n";
  return out;
}

} // namespace gpudoctor
