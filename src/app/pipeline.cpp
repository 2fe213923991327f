#include "app/pipeline.hpp"

#include "app/probe_run.hpp"
#include "app/terminal_text.hpp"
#include "checks/registry.hpp"
#include "collect/collectors.hpp"
#include "engine/runner.hpp"
#include "report/program_formats.hpp"
#include "system/output_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <unistd.h>

namespace gpudoctor {

std::expected<Loaded, Failure> load_data(const CheckOptions& opt) {
  auto kb = load_knowledge(opt.knowledge_dir);
  if (!kb)
    return fail(opt.knowledge_dir.empty() ? Exit::internal : Exit::usage, "knowledge tables: {}", kb.error());
  auto cat = load_catalogue();
  if (!cat) return fail(Exit::internal, "catalogue: {}", cat.error());
  return Loaded{std::move(*kb), std::move(*cat)};
}

namespace {

// --gpus: the results about a GPU the selection left out go (those about the machine, and about GPUs no
// subject of facts.gpus names, stay).
void keep_chosen_gpus(std::vector<Result>& results, const Facts& facts, const GpuSelection& selection) {
  std::vector<std::string> left_out;
  for (const auto& gpu : facts.gpus)
    if (!selection.covers(gpu.index)) left_out.push_back(gpu.subject());
  std::erase_if(results, [&](const Result& r) {
    return std::find(left_out.begin(), left_out.end(), r.subject) != left_out.end();
  });
}

} // namespace

namespace {

// The pipeline of both run_pipeline forms: `data` answers the loaded tables, waiting for them if need be
// (null: they could not be loaded, and the caller has the reason).
std::expected<Report, Failure> pipeline(SystemView& view, const std::function<const Loaded*()>& data,
                                        const CheckOptions& opt, const Stacks* stacks) {
  CollectOptions copt;
  copt.tool_timeout = std::chrono::milliseconds(opt.timeout_ms);
  copt.python_timeout = std::chrono::milliseconds(opt.timeout_ms);
  copt.extra_pythons = opt.pythons;
  copt.online = opt.online;
  copt.stacks = stacks;
  if (!opt.history_dir.empty()) copt.history_dir = opt.history_dir;
  Report report;
  auto started = std::chrono::steady_clock::now();
  ProbeSession probes(view, opt);
  // With --gpus the framework probe waits for the selection, which needs the GPUs collected.
  if (probes.active() && opt.gpus.empty())
    copt.python_known = [&](const PythonFacts& python) { probes.start_framework(python); };
  report.facts = collect_all(
      view,
      [&]() -> const Knowledge* {
        const Loaded* loaded = data();
        return loaded ? &loaded->kb : nullptr;
      },
      copt);
  const Loaded* loaded = data();
  if (!loaded) return fail(Exit::internal, "the knowledge tables were not loaded");
  if (!opt.gpus.empty()) {
    auto chosen = select_gpus(view, report.facts, opt.gpus, copt.tool_timeout);
    if (!chosen) return fail(Exit::usage, "--gpus: {}", chosen.error());
    probes.choose(report.facts, *chosen);
    report.selection = std::move(*chosen);
  }
  probes.finish(report.facts);
  // After the probes too: what was not run as root, of every command (sorted: the collectors' threads run in
  // any order).
  for (auto& [key, program] : view.untrusted_programs())
    report.facts.untrusted.push_back({key, std::move(program)});
  std::sort(report.facts.untrusted.begin(), report.facts.untrusted.end(), [](const auto& a, const auto& b) {
    return std::tie(a.program.path, a.key) < std::tie(b.program.path, b.key);
  });
  CheckContext ctx{report.facts, loaded->kb};
  report.results = run_checks(ctx, loaded->cat, builtin_checks(), opt.only);
  if (report.selection) keep_chosen_gpus(report.results, report.facts, *report.selection);
  report.finished = std::chrono::system_clock::now();
  report.duration =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  return report;
}

} // namespace

std::expected<Report, Failure> run_pipeline(SystemView& view, const Loaded& data, const CheckOptions& opt,
                                            const Stacks* stacks) {
  return pipeline(
      view, [&data] { return &data; }, opt, stacks);
}

std::expected<Report, Failure> run_pipeline(SystemView& view, const LoadingData& loading,
                                            const CheckOptions& opt) {
  auto judged = pipeline(
      view,
      [&loading]() -> const Loaded* {
        const auto& loaded = loading.get();
        return loaded ? &*loaded : nullptr;
      },
      opt, nullptr);
  if (const auto& loaded = loading.get(); !loaded) return std::unexpected(loaded.error());
  return judged;
}

namespace {

std::string render(const Report& report, const Loaded& data, const CheckOptions& opt) {
  if (opt.format == "json") return dump_json(report_to_json(report)) + "\n";
  if (opt.format == "html") return render_html(report, data.cat);
  if (opt.format == "prometheus") return render_prometheus(report);
  if (opt.format == "junit") return render_junit(report, data.cat, opt.strict);
  if (opt.format == "npd") return render_npd(report, opt.strict, opt.max_output_length).message + "\n";
  TextOptions topt;
  topt.verbose = opt.verbose;
  // A file is never a terminal: colour there only when asked for.
  topt.color = use_color(opt.color, opt.output);
  return render_text(report, data.cat, topt);
}

} // namespace

std::expected<void, Failure> print_report(const Report& report, const Loaded& data, const CheckOptions& opt) {
  std::string out = render(report, data, opt);
  if (opt.output.empty()) {
    if (opt.format == "text")
      print_fitted(out);
    else
      std::fwrite(out.data(), 1, out.size(), stdout);
    return {};
  }
  // The Prometheus textfile is 0644: node_exporter reads it as its own user (prometheus). Every other report
  // holds the machine's configuration unredacted: 0600, like a bundle.
  unsigned mode = opt.format == "prometheus" ? 0644 : 0600;
  if (auto written = write_output(opt.output, out, mode); !written)
    return fail(Exit::usage, "{}", written.error());
  return {};
}

} // namespace gpudoctor
