// gpudoctor fix: the fixes the checks point to, or the script of one of them (docs/fixes.md).
#include "app/commands.hpp"
#include "app/fix_session.hpp"
#include "util/escape.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cstdio>

namespace gpudoctor {

namespace {

int list_fixes(const FixSession& s) {
  auto fixes = fix::applicable_fixes(s.book, s.report.results);
  if (fixes.empty()) {
    std::printf("Nothing to fix: no warning or error on %s has a fix.\n", escape::one_line(s.source).c_str());
    return 0;
  }
  std::printf("Fixes for %s (gpudoctor fix ID prints the script; --apply runs it):\n",
              escape::one_line(s.source).c_str());
  for (const auto& f : fixes) {
    std::vector<std::string> why;
    for (const auto* r : f.results)
      why.push_back(r->id + " (" + status_name(r->status) + (r->subject.empty() ? "" : ", " + r->subject) +
                    ")");
    std::string title =
        f.recipe ? f.recipe->title : "no script: a manual fix (gpudoctor explain " + f.fix + ")";
    std::printf("  %-32s %s\n  %-32s   for %s\n", escape::one_line(f.fix).c_str(),
                escape::one_line(title).c_str(), "", escape::one_line(text::join(why, ", ")).c_str());
  }
  return 0;
}

} // namespace

int cmd_fix(const FixOptions& opt) {
  int status = 0;
  auto session = open_fix_session(opt, status);
  if (!session) return status;
  if (opt.id.empty()) return list_fixes(*session);
  if (!session->book.find(opt.id)) {
    if (const FixEntry* f = session->data.cat.find_fix(opt.id)) {
      std::fprintf(stderr, "gpudoctor: %s has no script: it is done by hand. %s\n",
                   escape::one_line(opt.id).c_str(), escape::one_line(f->description).c_str());
      return 2;
    }
    std::fprintf(stderr, "gpudoctor: no fix %s (gpudoctor fix lists the ones for this machine)\n",
                 escape::one_line(opt.id).c_str());
    return 2;
  }
  auto plan = fix::plan_fix(opt.id, session->context(opt));
  if (!plan) {
    std::fprintf(stderr, "gpudoctor: cannot make %s here: %s\n", escape::one_line(opt.id).c_str(),
                 escape::one_line(plan.error()).c_str());
    return 2;
  }
  return deliver_plan(*plan, *session, opt, false);
}

} // namespace gpudoctor
