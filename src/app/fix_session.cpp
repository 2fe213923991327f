#include "app/fix_session.hpp"

#include "app/root_handoff.hpp"
#include "app/rooted_view.hpp"
#include "fix/apply.hpp"
#include "fix/render.hpp"
#include "system/live_view.hpp"
#include "system/machine_paths.hpp"
#include "system/output_file.hpp"
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

std::unique_ptr<FixSession> open_fix_session(const FixOptions& opt, int& status) {
  auto s = std::make_unique<FixSession>();
  status = 3;
  auto data = load_data(opt.check);
  if (!data) {
    std::fprintf(stderr, "gpudoctor: %s\n", escape::one_line(data.error().message).c_str());
    status = data.error().status;
    return nullptr;
  }
  s->data = std::move(*data);
  auto book = fix::load_recipes();
  if (!book) {
    std::fprintf(stderr, "gpudoctor: recipes: %s\n", escape::one_line(book.error()).c_str());
    return nullptr;
  }
  s->book = std::move(*book);
  auto stacks = load_stacks();
  if (!stacks) {
    std::fprintf(stderr, "gpudoctor: %s\n", escape::one_line(stacks.error()).c_str());
    return nullptr;
  }
  s->stacks = std::move(*stacks);
  SystemView* view = nullptr;
  if (opt.from) {
    auto snap = OpenedSnapshot::open(*opt.from);
    if (!snap) {
      std::fprintf(stderr, "gpudoctor: cannot read snapshot %s\n", escape::one_line(snap.error()).c_str());
      status = 2;
      return nullptr;
    }
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
  s->report = run_pipeline(*view, s->data, opt.check, &s->stacks);
  if (!s->report.facts.inventory) {
    // A plan without the inventory would leave out what it must remove: gpudoctor's own failure (exit 3).
    std::string why;
    for (const auto& error : s->report.facts.collector_errors)
      if (error.starts_with("inventory: ")) why = error.substr(11);
    fmt::print(stderr, "gpudoctor: the inventory of {} could not be taken: {}\n", escape::one_line(s->source),
               escape::one_line(why));
    return nullptr;
  }
  status = 0;
  return s;
}

int deliver_plan(const fix::Plan& plan, const FixSession& session, const FixOptions& opt, bool migration) {
  if (plan.steps.empty()) {
    std::fprintf(stderr, "gpudoctor: %s has nothing to do on %s.\n", escape::one_line(plan.id).c_str(),
                 escape::one_line(session.source).c_str());
    return 0;
  }
  fix::Script script = fix::render_script(plan, session.book.library, GPUDOCTOR_VERSION);
  if (opt.apply) {
    if (opt.from) {
      std::fprintf(
          stderr, "gpudoctor: --apply runs on this machine; a plan made --from a snapshot is only printed\n");
      return 2;
    }
    // Steps that need root, or a test's root, are root's: a user's gpudoctor hands the whole apply to root.
    if (::geteuid() != 0 && (plan.needs_root() || !opt.root.empty())) {
      std::vector<std::string> args = given_arguments();
      auto pythons = session_python_options(opt.check.pythons);
      args.insert(args.end(), pythons.begin(), pythons.end());
      std::string what = migration ? "the migration" : fmt::format("fix {}", plan.id);
      int status = run_as_root(args, what);
      if (status != 2) fix::note_root_apply(migration ? plan.id : "fix " + plan.id + " --apply");
      return status;
    }
    return fix::apply_plan(plan, script, {opt.yes, opt.root, opt.any_host, given_command(), {}}, migration);
  }
  if (!opt.emit.empty()) {
    if (auto w = write_output(opt.emit, script.text, 0755); !w) {
      // An output that cannot be written is exit 2 (shared/spec/report-v1.md); the error names the path.
      std::fprintf(stderr, "gpudoctor: --emit: %s\n", escape::one_line(w.error()).c_str());
      return 2;
    }
    std::fprintf(stderr, "gpudoctor: wrote %s (%s, %zu steps). Try it with --dry-run first.\n",
                 escape::one_line(opt.emit).c_str(), escape::one_line(script.id).c_str(), plan.steps.size());
    return 0;
  }
  std::fwrite(script.text.data(), 1, script.text.size(), stdout);
  return 0;
}

} // namespace gpudoctor
