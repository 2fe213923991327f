// gpudoctor diff: one machine's two snapshots, bundles or reports compared. Snapshots and bundles are judged
// now (both sides by this gpudoctor, with their package lists); reports are read as they are. With
// --last-good or --last the earlier side is a report of the node's history, and the later one this machine
// now (docs/fleet.md, "History").
#include "app/commands.hpp"
#include "app/compare_output.hpp"
#include "app/history_keep.hpp"
#include "app/report_input.hpp"
#include "app/terminal_text.hpp"
#include "fleet/report_diff.hpp"
#include "report/diff_render.hpp"
#include "system/live_view.hpp"
#include "util/build_info.hpp"
#include "util/package_version.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// The newest kept report (--last), or the newest without an error that this or an older gpudoctor wrote
// (--last-good: a newer one may judge checks this one does not know, which would read as changes).
std::expected<NodeReport, Failure> kept_before(const DiffOptions& opt, std::vector<std::string>& notes) {
  const char* what = opt.last_good ? "diff --last-good" : "diff --last";
  auto dir = history_folder(opt.history_dir, what);
  if (!dir) return std::unexpected(dir.error());
  std::error_code ec;
  if (!std::filesystem::exists(*dir, ec))
    return fail(Exit::usage,
                "{}: no history in {}: `gpudoctor check --history` keeps one (the timer "
                "gpudoctor-metrics.timer does every 5 minutes)",
                what, *dir);
  auto folder = history::Folder::open(*dir, false);
  if (!folder) return fail(Exit::usage, "{}: {}", what, folder.error());
  auto entries = folder->list();
  if (!entries) return fail(Exit::usage, "{}: {}", what, entries.error());
  JsonReader json(k_max_report_bytes);
  std::size_t newer = 0;
  for (auto it = entries->rbegin(); it != entries->rend(); ++it) {
    if (opt.last_good && !it->good) continue;
    auto node = read_kept_report(*folder, json, it->name, ReadOptions{true});
    if (!node) {
      diag::warning("{}: passed over: {}", what, node.error());
      continue;
    }
    if (opt.last_good && dpkg_version_compare(node->tool_version, build_info::version) > 0) {
      ++newer;
      continue;
    }
    node->origin = fmt::format("kept {}, the newest{}", it->time, opt.last_good ? " without an error" : "");
    if (newer)
      notes.push_back(fmt::format("{} newer kept report{} without an error passed over: a newer gpudoctor "
                                  "wrote {}",
                                  newer, newer == 1 ? "" : "s", newer == 1 ? "it" : "them"));
    return std::move(*node);
  }
  return fail(Exit::usage, "{}: {} holds no {}", what, folder->path(),
              opt.last_good ? "report without an error written by this or an older gpudoctor" : "report");
}

// This machine now, judged as `check` judges it and redacted as the history keeps its reports, so that the
// two sides are alike.
std::expected<NodeReport, Failure> checked_now(const DiffOptions& opt) {
  CheckOptions copt;
  copt.pythons = opt.pythons;
  copt.timeout_ms = opt.timeout_ms;
  copt.history_dir = opt.history_dir;
  auto data = load_data(copt);
  if (!data) return std::unexpected(data.error());
  LiveView live;
  auto report = run_pipeline(live, *data, copt);
  if (!report) return std::unexpected(report.error());
  JsonReader json(k_max_report_bytes);
  auto root = json.parse(kept_report_text(*report, data->kb));
  if (!root) return fail(Exit::internal, "the report of now does not read back: {}", root.error());
  auto node = read_node_report(*root, ReadOptions{true});
  if (!node) return fail(Exit::internal, "the report of now does not read back: {}", node.error());
  node->input = "this machine";
  node->origin = "checked now";
  return std::move(*node);
}

} // namespace

Outcome cmd_diff(const DiffOptions& opt) {
  InputReader reader(InputOptions{true, true});
  std::vector<std::string> notes;
  std::expected<NodeReport, Failure> before = std::unexpected(Failure{});
  std::expected<NodeReport, Failure> after = std::unexpected(Failure{});
  if (opt.last_good || opt.last) {
    before = kept_before(opt, notes);
    if (!before) return std::unexpected(before.error());
  } else if (auto read = reader.read(opt.before); read) {
    before = std::move(*read);
  } else {
    return fail(Exit::usage, "{}: {}", opt.before, read.error());
  }
  if (opt.after.empty()) {
    after = checked_now(opt);
    if (!after) return std::unexpected(after.error());
  } else if (auto read = reader.read(opt.after); read) {
    after = std::move(*read);
  } else {
    return fail(Exit::usage, "{}: {}", opt.after, read.error());
  }
  auto mismatch = machine_mismatch(*before, *after);
  if (mismatch && !opt.force)
    return fail(Exit::usage, "{} and {} are not one machine: {} (--force compares them anyway)",
                before->input, after->input, *mismatch);
  ReportDiff diff = diff_reports(*before, *after);
  diff.notes.insert(diff.notes.begin(), notes.begin(), notes.end());
  if (mismatch) diff.notes.insert(diff.notes.begin(), fmt::format("{}: compared with --force", *mismatch));
  std::string out = opt.format == "json"   ? dump_json(diff_to_json(diff)) + "\n"
                    : opt.format == "html" ? render_diff_html(diff)
                                           : render_diff_text(diff, use_color(opt.color, opt.output));
  if (auto written = emit(out, opt.output, opt.format == "text"); !written)
    return std::unexpected(written.error());
  return diff.empty() ? Exit::ok : Exit::findings;
}

} // namespace gpudoctor
