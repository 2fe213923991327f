#include "app/commands.hpp"
#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "system/live_view.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cstdio>

namespace gpudoctor {

Outcome cmd_check(const CheckOptions& opt) {
  auto data = load_data(opt);
  if (!data) return std::unexpected(data.error());
  for (const auto& id : opt.only)
    if (!data->cat.find(id))
      return fail(Exit::usage, "unknown check id \"{}\" (gpudoctor check --list shows them)", id);
  Report report;
  if (opt.from) {
    auto snap = OpenedSnapshot::open(*opt.from);
    if (!snap) return fail(Exit::usage, "cannot read snapshot {}", snap.error());
    report = run_pipeline((*snap)->view(), *data, opt);
    report.source_kind = "snapshot";
    report.source_path = *opt.from;
  } else {
    LiveView live;
    report = run_pipeline(live, *data, opt);
  }
  if (auto printed = print_report(report, *data, opt); !printed) return std::unexpected(printed.error());
  return exit_status(report.results, opt.strict);
}

Outcome cmd_list_checks() {
  auto cat = load_catalogue();
  if (!cat) return fail(Exit::internal, "{}", cat.error());
  std::size_t width = 0;
  for (const auto& e : cat->checks)
    width = std::max(width, e.id.size());
  for (const auto& e : cat->checks)
    std::printf("%-*s  %s\n", static_cast<int>(width), e.id.c_str(), e.title.c_str());
  return Exit::ok;
}

Outcome cmd_explain(const std::string& id) {
  auto cat = load_catalogue();
  if (!cat) return fail(Exit::internal, "{}", cat.error());
  const CatalogueEntry* e = cat->find(id);
  if (!e) {
    if (const FixEntry* f = cat->find_fix(id)) {
      std::printf("%s: %s\n\n%s\n", f->id.c_str(), f->title.c_str(), f->description.c_str());
      return Exit::ok;
    }
    return fail(Exit::usage, "no check or fix \"{}\" (gpudoctor check --list shows the checks)", id);
  }
  std::printf("%s: %s\n", e->id.c_str(), e->title.c_str());
  std::printf("Reports %s when the problem is present. Area: %s.\n\n", e->fires_status.c_str(),
              e->area.c_str());
  std::printf("What it checks\n  %s\n\nWhy it matters\n  %s\n\nHow to fix it\n  %s\n", e->what.c_str(),
              e->why.c_str(), e->fix.c_str());
  for (const auto& fix : e->fixes) {
    const FixEntry* f = cat->find_fix(fix);
    std::printf("  gpudoctor fix %s%s\n", fix.c_str(), f ? (" (" + f->title + ")").c_str() : "");
  }
  return Exit::ok;
}

} // namespace gpudoctor
