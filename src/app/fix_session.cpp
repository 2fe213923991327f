#include "app/fix_session.hpp"

#include "app/fix_frontend.hpp"
#include "app/root_handoff.hpp"
#include "app/rooted_view.hpp"
#include "fix/apply.hpp"
#include "fix/render.hpp"
#include "system/live_view.hpp"
#include "system/machine_paths.hpp"
#include "system/output_file.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"

#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

fix::PlanContext FixSession::context(const FixOptions& opt) const {
  fix::PlanOptions po;
  po.versions = {opt.driver, opt.cuda, opt.rocm, opt.torch};
  po.mirror = opt.mirror;
  po.render_all = opt.render_all;
  po.check_host = check_host && !opt.any_host;
  po.unhold = opt.unhold;
  po.stop_gpu_users = opt.stop_gpu_users;
  po.incoming_gpu = opt.gpu;
  po.source = source;
  // The migration's check step runs this gpudoctor by its absolute path (a PATH such as sudo's secure_path
  // may lack its folder); the script judges it with the trust rule before it runs it.
  std::error_code ec;
  if (auto self = std::filesystem::read_symlink(paths::self_exe, ec).string(); !ec && self.starts_with("/"))
    po.gpudoctor = self;
  return fix::PlanContext{report.facts, data.kb, stacks, book, *report.facts.inventory, report.results, po};
}

std::expected<std::unique_ptr<FixSession>, Failure> open_fix_session(const FixOptions& opt) {
  auto s = std::make_unique<FixSession>();
  auto data = load_data(opt.check);
  if (!data) return std::unexpected(data.error());
  s->data = std::move(*data);
  auto book = fix::load_recipes();
  if (!book) return fail(Exit::internal, "recipes: {}", book.error());
  s->book = std::move(*book);
  auto stacks = load_stacks();
  if (!stacks) return fail(Exit::internal, "{}", stacks.error());
  s->stacks = std::move(*stacks);
  SystemView* view = nullptr;
  if (opt.from) {
    auto snap = OpenedSnapshot::open(*opt.from);
    if (!snap) return fail(Exit::usage, "cannot read snapshot {}", snap.error());
    s->snapshot = std::move(*snap);
    view = &s->snapshot->view();
    s->source = "snapshot " + *opt.from;
    const auto& redacted = s->snapshot->view().manifest().redacted;
    if (std::find(redacted.begin(), redacted.end(), "hostname") != redacted.end()) s->check_host = false;
  } else if (!opt.root.empty()) {
    s->live = std::make_unique<RootedView>(opt.root);
    view = s->live.get();
    s->source = "the files below " + opt.root + " (--root, for tests)";
  } else {
    s->live = std::make_unique<LiveView>();
    view = s->live.get();
  }
  auto judged = run_pipeline(*view, s->data, opt.check, &s->stacks);
  if (!judged) return std::unexpected(judged.error());
  s->report = std::move(*judged);
  if (const auto& over = s->report.facts.packages.over_limit; !over.empty())
    return fail(Exit::usage, "{}: a plan needs the whole package list, so none is made", over);
  if (!s->report.facts.inventory) {
    // A plan without the inventory would leave out what it must remove: gpudoctor's own failure (exit 3).
    std::string why;
    for (const auto& error : s->report.facts.collector_errors)
      if (error.starts_with("inventory: ")) why = error.substr(11);
    return fail(Exit::internal, "the inventory of {} could not be taken: {}", s->source, why);
  }
  return s;
}

Outcome deliver_plan(const fix::Plan& plan, const FixSession& session, const FixOptions& opt,
                     bool migration) {
  if (plan.steps.empty()) {
    diag::say("{} has nothing to do on {}.", plan.id, session.source);
    return Exit::ok;
  }
  fix::Script script = fix::render_script(plan, session.book.library, GPUDOCTOR_VERSION);
  if (opt.apply) {
    if (opt.from)
      return fail(Exit::usage, "--apply runs on this machine; a plan made --from a snapshot is only printed");
    // Steps that need root, or a test's root, are root's: a user's gpudoctor hands the whole apply to root.
    if (::geteuid() != 0 && (plan.needs_root() || !opt.root.empty())) {
      std::vector<std::string> args = given_arguments();
      auto pythons = session_python_options(opt.check.pythons);
      args.insert(args.end(), pythons.begin(), pythons.end());
      std::string what = migration ? "the migration" : fmt::format("fix {}", plan.id);
      Outcome status = run_as_root(args, what);
      if (status && *status != Exit::usage)
        note_root_apply(migration ? plan.id : "fix " + plan.id + " --apply");
      return status;
    }
    return drive(opt.events, [&](fix::Frontend& ui) {
      return fix::apply_plan(plan, script, {opt.yes, opt.root, opt.any_host, given_command(), {}}, migration,
                             ui);
    });
  }
  if (!opt.emit.empty()) {
    // An output that cannot be written is exit 2 (shared/spec/report-v1.md); the error names the path.
    if (auto w = write_output(opt.emit, script.text, 0755); !w)
      return fail(Exit::usage, "--emit: {}", w.error());
    diag::say("wrote {} ({}, {} steps). Try it with --dry-run first.", opt.emit, script.id,
              plan.steps.size());
    return Exit::ok;
  }
  std::fwrite(script.text.data(), 1, script.text.size(), stdout);
  return Exit::ok;
}

} // namespace gpudoctor
