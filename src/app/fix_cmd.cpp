// gpudoctor fix: the fixes the checks point to, or the script of one of them (docs/fixes.md).
#include "app/commands.hpp"
#include "app/fix_frontend.hpp"
#include "app/fix_session.hpp"
#include "app/terminal_text.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"
#include "util/suggest.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

Outcome list_fixes(const FixSession& s) {
  auto fixes = fix::applicable_fixes(s.book, s.report.results);
  if (fixes.empty()) {
    std::printf("Nothing to fix: no warning or error on %s has a fix.\n", escape::one_line(s.source).c_str());
    return Exit::ok;
  }
  std::string text = fmt::format("Fixes for {} (gpudoctor fix ID prints the script; --apply runs it):\n",
                                 escape::one_line(s.source));
  for (const auto& f : fixes) {
    std::vector<std::string> why;
    for (const auto* r : f.results)
      why.push_back(r->id + " (" + status_name(r->status) + (r->subject.empty() ? "" : ", " + r->subject) +
                    ")");
    std::string title =
        f.recipe ? f.recipe->title : "no script: a manual fix (gpudoctor explain " + f.fix + ")";
    text += fmt::format("  {:<32} {}\n  {:<32}   for {}\n", escape::one_line(f.fix), escape::one_line(title),
                        "", escape::one_line(text::join(why, ", ")));
  }
  print_fitted(text);
  return Exit::ok;
}

} // namespace

Outcome cmd_fix(const FixOptions& opt) {
  if (opt.apply)
    if (auto refused = events_refusal(opt.events, opt.yes)) return std::unexpected(*refused);
  auto session = open_fix_session(opt);
  if (!session) return std::unexpected(session.error());
  const FixSession& s = **session;
  if (opt.id.empty()) return list_fixes(s);
  if (!s.book.find(opt.id)) {
    if (const FixEntry* f = s.data.cat.find_fix(opt.id))
      return fail(Exit::usage, "{} has no script: it is done by hand. {}", opt.id, f->description);
    std::vector<std::string> ids;
    for (const auto& f : s.data.cat.fixes)
      ids.push_back(f.id);
    return fail(Exit::usage, "no fix {}{} (gpudoctor fix lists the ones for this machine)", opt.id,
                did_you_mean(opt.id, ids));
  }
  auto plan = fix::plan_fix(opt.id, s.context(opt));
  if (!plan) return fail(Exit::usage, "cannot make {} here: {}", opt.id, plan.error());
  return deliver_plan(*plan, s, opt, false);
}

} // namespace gpudoctor
