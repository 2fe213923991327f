// gpudoctor migrate: one staged plan to move a machine from one GPU vendor's stack to the other's.
#include "app/commands.hpp"
#include "app/fix_session.hpp"
#include "fix/apply.hpp"
#include "util/escape.hpp"

#include <cstdio>

namespace gpudoctor {

int cmd_migrate(const MigrateOptions& opt) {
  if (opt.resume) return fix::resume_migration({opt.fix.yes, opt.fix.root, opt.fix.any_host});
  if (opt.to != "nvidia" && opt.to != "amd") {
    std::fprintf(stderr, "gpudoctor: migrate --to nvidia or --to amd\n");
    return 2;
  }
  int status = 0;
  auto session = open_fix_session(opt.fix, status);
  if (!session) return status;
  fix::PlanContext ctx = session->context(opt.fix);
  ctx.options.remove_present_stack = opt.remove_present_stack;
  auto plan = fix::plan_migration(opt.to, ctx);
  if (!plan) {
    std::fprintf(stderr, "gpudoctor: cannot plan the move to %s: %s\n", escape::one_line(opt.to).c_str(),
                 escape::one_line(plan.error()).c_str());
    return 2;
  }
  return deliver_plan(*plan, *session, opt.fix, true);
}

int cmd_undo(const UndoOptions& opt) {
  return fix::undo_last_apply(opt.root, opt.yes, opt.state);
}

} // namespace gpudoctor
