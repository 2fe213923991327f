// gpudoctor migrate: one staged plan to move a machine from one GPU vendor's stack to the other's; and undo.
#include "app/commands.hpp"
#include "app/fix_frontend.hpp"
#include "app/fix_session.hpp"
#include "app/root_handoff.hpp"
#include "fix/apply.hpp"
#include "util/diagnostics.hpp"

#include <unistd.h>

namespace gpudoctor {

namespace {

// The options given that would shape a new plan: a rerun that continues the recorded migration ignores them.
std::vector<std::string> plan_options(const MigrateOptions& opt) {
  const FixOptions& f = opt.fix;
  std::vector<std::string> out;
  auto add = [&](const char* name, const std::string& value) {
    if (!value.empty()) out.push_back(std::string(name) + " " + value);
  };
  add("--driver", f.driver);
  add("--cuda", f.cuda);
  add("--rocm", f.rocm);
  add("--torch", f.torch);
  add("--mirror", f.mirror);
  add("--gpu", f.gpu);
  for (const auto& p : f.check.pythons)
    add("--python", p);
  if (f.unhold) out.emplace_back("--unhold");
  if (f.stop_gpu_users) out.emplace_back("--stop-gpu-users");
  if (f.render_all) out.emplace_back("--render-all");
  if (opt.remove_present_stack) out.emplace_back("--remove-stack-of-present-gpu");
  return out;
}

} // namespace

Outcome cmd_migrate(const MigrateOptions& opt) {
  fix::ApplyOptions aopt{opt.fix.yes, opt.fix.root, opt.fix.any_host, given_command(), {}};
  bool acts = opt.resume || opt.finish || opt.fix.apply;
  if (auto refused = events_refusal(opt.fix.events, opt.fix.yes); refused && acts)
    return std::unexpected(*refused);
  // The migration is root's (its records, its steps): a user's gpudoctor hands it over whole.
  if (acts && ::geteuid() != 0 && !opt.fix.from) {
    std::vector<std::string> args = given_arguments();
    if (opt.fix.apply && !opt.resume && !opt.finish) {
      auto pythons = session_python_options(opt.fix.check.pythons);
      args.insert(args.end(), pythons.begin(), pythons.end());
    }
    Outcome status = run_as_root(args, opt.finish ? "finishing the migration" : "the migration");
    if (status && *status != Exit::usage && opt.fix.apply && !opt.resume && !opt.finish)
      note_root_apply("migrate --to " + opt.to + " --apply");
    return status;
  }
  if (opt.finish)
    return drive(opt.fix.events, [&](fix::Frontend& ui) { return fix::finish_migration(aopt, ui); });
  if (opt.resume)
    return drive(opt.fix.events, [&](fix::Frontend& ui) { return fix::resume_migration(aopt, ui); });
  if (opt.to != "nvidia" && opt.to != "amd") return fail(Exit::usage, "migrate --to nvidia or --to amd");
  if (opt.fix.apply && !opt.fix.from) {
    aopt.ignored = plan_options(opt);
    auto ui = make_frontend(opt.fix.events);
    if (auto handled = fix::apply_recorded_migration(opt.to, aopt, *ui)) {
      ui->end(*handled);
      return *handled;
    }
  }
  auto session = open_fix_session(opt.fix);
  if (!session) return std::unexpected(session.error());
  fix::PlanContext ctx = (*session)->context(opt.fix);
  ctx.options.remove_present_stack = opt.remove_present_stack;
  auto plan = fix::plan_migration(opt.to, ctx);
  if (!plan) return fail(Exit::usage, "cannot plan the move to {}: {}", opt.to, plan.error());
  return deliver_plan(*plan, **session, opt.fix, true);
}

Outcome cmd_undo(const UndoOptions& opt) {
  if (auto refused = events_refusal(opt.events, opt.yes)) return std::unexpected(*refused);
  fix::UndoRequest req{opt.root, opt.yes, opt.state, opt.script, opt.run};
  if (::geteuid() != 0) {
    auto u = fix::user_undo(req);
    if (u.kind == fix::UserUndo::Kind::root)
      return run_as_root(u.root_args, "undoing an apply that ran as root");
    if (u.kind == fix::UserUndo::Kind::none) return std::unexpected(u.refusal);
  }
  return drive(opt.events, [&](fix::Frontend& ui) { return fix::undo_apply(req, ui); });
}

} // namespace gpudoctor
