#include "app/commands.hpp"
#include "app/history_keep.hpp"
#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "app/terminal_text.hpp"
#include "report/program_formats.hpp"
#include "system/live_view.hpp"
#include "util/diagnostics.hpp"
#include "util/suggest.hpp"

#include <algorithm>
#include <cstdio>
#include <future>
#include <malloc.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

std::vector<std::string> check_ids(const Catalogue& cat) {
  std::vector<std::string> ids;
  for (const auto& e : cat.checks)
    ids.push_back(e.id);
  return ids;
}

// The ids and titles, one a line, aligned.
template <class Entries> std::string id_lines(const Entries& entries, std::size_t width) {
  std::string out;
  for (const auto& e : entries)
    out += fmt::format("{:<{}}  {}\n", e.id, width, e.title);
  return out;
}

// `check` but for what it says when it could not judge the machine.
Outcome judge_and_print(const CheckOptions& opt) {
  // The built-in tables load while the first collectors run (run_pipeline's LoadingData form). A folder of
  // the user's (--knowledge), and ids to check against the catalogue (--only), are judged before any
  // collecting instead: a bad input is said at once.
  // Two malloc arenas, set before the first thread: glibc gives each new thread its own (up to 8 a core),
  // and `check`'s threads mostly wait on programs. Measured: 0.5 MiB less at the peak, the same time.
#ifdef M_ARENA_MAX
  ::mallopt(M_ARENA_MAX, 2);
#endif
  LoadingData loading = std::async(std::launch::async, [&opt] { return load_data(opt); }).share();
  if (!opt.knowledge_dir.empty() || !opt.only.empty()) {
    const auto& early = loading.get();
    if (!early) return std::unexpected(early.error());
    for (const auto& id : opt.only)
      if (!early->cat.find(id))
        return fail(Exit::usage, "unknown check id \"{}\"{} (gpudoctor check --list shows them)", id,
                    did_you_mean(id, check_ids(early->cat)));
  }
  // The history folder is opened (made, judged) before the checks run: a folder root must not write in is
  // said before seconds of checks, not after.
  std::optional<history::Folder> kept_in;
  if (opt.history || !opt.history_dir.empty()) {
    auto folder = open_history_for_check(opt);
    if (!folder) return std::unexpected(folder.error());
    kept_in = std::move(*folder);
  }
  std::expected<Report, Failure> judged;
  if (opt.from) {
    auto snap = OpenedSnapshot::open(*opt.from);
    if (!snap) return fail(Exit::usage, "cannot read snapshot {}", snap.error());
    judged = run_pipeline((*snap)->view(), loading, opt);
    if (judged) {
      judged->source_kind = "snapshot";
      judged->source_path = *opt.from;
    }
  } else {
    LiveView live;
    judged = run_pipeline(live, loading, opt);
  }
  if (!judged) return std::unexpected(judged.error());
  const Loaded* data = &*loading.get(); // loaded: run_pipeline fails when it is not
  const Report& report = *judged;
  if (auto printed = print_report(report, *data, opt); !printed) return std::unexpected(printed.error());
  if (!opt.textfile.empty())
    if (auto written = write_textfile(report, opt.textfile, opt.probe_run); !written)
      return std::unexpected(written.error());
  if (kept_in) {
    auto kept = keep_report(*kept_in, report, *data, opt);
    if (!kept) return std::unexpected(kept.error());
    diag::note("report kept in the history: {}/{}", kept_in->path(), kept->name);
  }
  return exit_status(report.results, opt.strict);
}

} // namespace

Outcome cmd_check(const CheckOptions& opt) {
  Outcome out = judge_and_print(opt);
  // node-problem-detector and NHC take stdout as the condition's message: a run that could not judge the
  // machine says why there too (stderr has it whole), never an empty condition.
  if (!out && opt.format == "npd")
    std::printf("%s\n", render_npd_failure(out.error().message, opt.max_output_length).c_str());
  return out;
}

Outcome cmd_list_checks() {
  auto cat = load_catalogue();
  if (!cat) return fail(Exit::internal, "{}", cat.error());
  std::size_t width = 0;
  for (const auto& e : cat->checks)
    width = std::max(width, e.id.size());
  print_fitted(id_lines(cat->checks, width));
  return Exit::ok;
}

Outcome cmd_explain(const std::string& id) {
  auto cat = load_catalogue();
  if (!cat) return fail(Exit::internal, "{}", cat.error());
  if (id.empty()) {
    // Without an id: every id it explains, the checks', then the fixes'.
    std::size_t width = 0;
    for (const auto& c : cat->checks)
      width = std::max(width, c.id.size());
    for (const auto& f : cat->fixes)
      width = std::max(width, f.id.size());
    print_fitted("Checks (gpudoctor explain ID):\n" + id_lines(cat->checks, width) +
                 "\nFixes (gpudoctor explain ID; gpudoctor fix ID prints its script):\n" +
                 id_lines(cat->fixes, width));
    return Exit::ok;
  }
  const CatalogueEntry* e = cat->find(id);
  if (!e) {
    if (const FixEntry* f = cat->find_fix(id)) {
      print_fitted(fmt::format("{}: {}\n\n{}\n", f->id, f->title, f->description));
      return Exit::ok;
    }
    std::vector<std::string> ids = check_ids(*cat);
    for (const auto& f : cat->fixes)
      ids.push_back(f.id);
    return fail(Exit::usage, "no check or fix \"{}\"{} (gpudoctor explain lists them)", id,
                did_you_mean(id, ids));
  }
  std::string text = fmt::format("{}: {}\nReports {} when the problem is present. Area: {}.\n\n"
                                 "What it checks\n  {}\n\nWhy it matters\n  {}\n\nHow to fix it\n  {}\n",
                                 e->id, e->title, e->fires_status, e->area, e->what, e->why, e->fix);
  for (const auto& fix : e->fixes) {
    const FixEntry* f = cat->find_fix(fix);
    text += fmt::format("  gpudoctor fix {}{}\n", fix, f ? " (" + f->title + ")" : "");
  }
  if (e->action)
    text += fmt::format("  {}{}\n", e->action->kind == Action::Kind::command ? "run: " : "", e->action->text);
  print_fitted(text);
  return Exit::ok;
}

} // namespace gpudoctor
