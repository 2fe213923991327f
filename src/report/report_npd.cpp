// node-problem-detector's custom plugin protocol: an exit status (0 OK, 1 NonOK, other Unknown) and one line
// on stdout, of which NPD keeps the first max_output_length bytes (pkg/custompluginmonitor/types/config.go:
// default 80; plugin/plugin.go cuts the trimmed output there). The line is made to fit instead, on a
// character boundary, with what did not fit counted: "gpu.no-driver, env.hsa-override-mismatch (+2 more):
// GPU without a kernel driver [gpu0 (0000:01:00.0)]". It starts with the check ids of the problems, so a
// program (contrib/slurm) can take them as the reason without parsing the rest.
#include "report/program_formats.hpp"
#include "report/text_bounds.hpp"
#include "util/escape.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// The ids of the results with one of `statuses`, once each, in report order; the first such result.
std::vector<std::string> ids_with(const std::vector<Result>& results, std::initializer_list<Status> statuses,
                                  const Result** first) {
  std::vector<std::string> ids;
  for (const auto& r : results) {
    if (std::find(statuses.begin(), statuses.end(), r.status) == statuses.end()) continue;
    if (!*first) *first = &r;
    if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(escape::one_line(r.id));
  }
  return ids;
}

// As many ids as fit in `max_bytes` with the count of the others: "a, b (+3 more)". At least the first.
std::string id_list(const std::vector<std::string>& ids, std::size_t max_bytes) {
  for (std::size_t k = ids.size(); k > 1; --k) {
    std::string s = ids[0];
    for (std::size_t i = 1; i < k; ++i)
      s += ", " + ids[i];
    if (k < ids.size()) s += fmt::format(" (+{} more)", ids.size() - k);
    if (s.size() <= max_bytes) return s;
  }
  return ids.size() == 1 ? ids[0] : fmt::format("{} (+{} more)", ids[0], ids.size() - 1);
}

// `head` then, where room is left, ": " and as much of `tail` as fits (cut text ends with "…").
std::string with_tail(const std::string& head, const std::string& tail, std::size_t max_bytes) {
  std::string sep = ": ";
  if (tail.empty() || head.size() + sep.size() >= max_bytes) return head;
  std::size_t room = max_bytes - head.size() - sep.size();
  if (tail.size() <= room) return head + sep + tail;
  std::string mark = "…";
  if (room < mark.size() + 8) return head; // a few characters say nothing
  return head + sep + std::string(utf8_prefix(tail, room - mark.size())) + mark;
}

} // namespace

std::string render_npd_failure(const std::string& why, std::size_t max_bytes) {
  return with_tail("gpudoctor could not judge this node", escape::one_line(why),
                   std::max(max_bytes, k_npd_min_bytes));
}

NpdOutput render_npd(const Report& report, bool strict, std::size_t max_bytes) {
  max_bytes = std::max(max_bytes, k_npd_min_bytes);
  const Result* first = nullptr;
  auto problems = strict ? ids_with(report.results, {Status::error, Status::warn}, &first)
                         : ids_with(report.results, {Status::error}, &first);
  if (!problems.empty()) {
    std::string what = escape::one_line(first->title);
    if (!first->subject.empty()) what += " [" + escape::one_line(first->subject) + "]";
    std::string head = id_list(problems, max_bytes);
    // What to do, only where all of it fits: a command cut short is worse than none.
    std::string todo = !first->fixes.empty() ? "gpudoctor fix " + escape::one_line(first->fixes[0])
                       : first->action && first->action->kind == Action::Kind::command
                           ? escape::one_line(first->action->text)
                           : "";
    if (std::string whole = head + ": " + what + " → " + todo; !todo.empty() && whole.size() <= max_bytes)
      return {whole, 1};
    return {with_tail(head, what, max_bytes), 1};
  }
  const Result* first_warning = nullptr;
  auto warnings = ids_with(report.results, {Status::warn}, &first_warning);
  std::string ok = warnings.empty() ? fmt::format("no problems ({} results)", report.results.size())
                                    : "no errors; warnings";
  if (warnings.empty()) return {std::string(utf8_prefix(ok, max_bytes)), 0};
  return {with_tail(ok, id_list(warnings, max_bytes - ok.size() - 2), max_bytes), 0};
}

} // namespace gpudoctor
