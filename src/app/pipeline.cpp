#include "app/pipeline.hpp"

#include "app/probe_run.hpp"
#include "check/runner.hpp"
#include "collect/collectors.hpp"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace gpudoctor {

std::expected<Loaded, LoadFailure> load_data(const CheckOptions& opt) {
  auto kb = load_knowledge(opt.knowledge_dir);
  if (!kb)
    return std::unexpected(LoadFailure{"knowledge tables: " + kb.error(), opt.knowledge_dir.empty() ? 3 : 2});
  auto cat = load_catalogue();
  if (!cat) return std::unexpected(LoadFailure{"catalogue: " + cat.error(), 3});
  return Loaded{std::move(*kb), std::move(*cat)};
}

Report run_pipeline(SystemView& view, const Loaded& data, const CheckOptions& opt) {
  CollectOptions copt;
  copt.tool_timeout = std::chrono::milliseconds(opt.timeout_ms);
  copt.python_timeout = std::chrono::milliseconds(opt.timeout_ms);
  copt.extra_pythons = opt.pythons;
  copt.online = opt.online;
  Report report;
  ProbeSession probes(view, opt);
  if (probes.active()) copt.python_known = [&](const PythonFacts& python) { probes.start_framework(python); };
  report.facts = collect_all(view, data.kb, copt);
  probes.finish(report.facts);
  CheckContext ctx{report.facts, data.kb};
  report.results = run_checks(ctx, data.cat, opt.only);
  return report;
}

void print_report(const Report& report, const Loaded& data, const CheckOptions& opt) {
  if (opt.format == "json") {
    std::string out = dump_json(report_to_json(report)) + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return;
  }
  if (opt.format == "html") {
    std::string out = render_html(report, data.cat);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return;
  }
  TextOptions topt;
  topt.verbose = opt.verbose;
  const char* no_color = std::getenv("NO_COLOR");
  bool no_color_set = no_color && *no_color;
  topt.color = opt.color == ColorMode::always ||
               (opt.color == ColorMode::automatic && !no_color_set && ::isatty(STDOUT_FILENO));
  std::string out = render_text(report, data.cat, topt);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

} // namespace gpudoctor
