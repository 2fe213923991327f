#include "app/history_keep.hpp"

#include "bundle/redact_report.hpp"
#include "report/program_formats.hpp"
#include "system/output_file.hpp"
#include "system/root_exec.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

std::expected<std::string, Failure> history_folder(const std::string& given, std::string_view what) {
  if (!given.empty()) return given;
  if (!running_as_root()) return fail(Exit::usage, "{}", history::needs_root(what));
  return std::string(history::k_system_dir);
}

std::expected<history::Folder, Failure> open_history_for_check(const CheckOptions& opt) {
  if (opt.from && opt.history_dir.empty())
    return fail(Exit::usage, "--history keeps this machine's reports: with --from, name a folder for the "
                             "snapshot's (--history-dir DIR)");
  // A kept report stands for the whole machine: `diff --last-good` compares all of it.
  if (!opt.only.empty() || !opt.gpus.empty())
    return fail(Exit::usage, "--history keeps whole reports: --{} would leave results out",
                opt.only.empty() ? "gpus" : "only");
  auto dir = history_folder(opt.history_dir, "check --history");
  if (!dir) return std::unexpected(dir.error());
  auto folder = history::Folder::open(*dir, true);
  if (!folder) return fail(Exit::usage, "cannot keep the report: {}", folder.error());
  return std::move(*folder);
}

std::string kept_report_text(const Report& report, const Knowledge& kb) {
  Json doc = report_to_json(report);
  redact_report(doc, &kb);
  return dump_json(doc) + "\n";
}

std::expected<history::Entry, Failure> keep_report(history::Folder& folder, const Report& report,
                                                   const Loaded& data, const CheckOptions& opt) {
  history::Limits limits;
  limits.max_reports = opt.history_max_reports;
  limits.max_bytes = std::uint64_t{opt.history_max_mib} << 20;
  bool good = summarize(report.results).error == 0;
  auto kept = folder.add(kept_report_text(report, data.kb), good, limits);
  if (!kept) return fail(Exit::usage, "cannot keep the report: {}", kept.error());
  return *kept;
}

std::expected<NodeReport, std::string> read_kept_report(const history::Folder& folder, JsonReader& json,
                                                        const std::string& name, const ReadOptions& opt) {
  auto text = folder.read(name);
  if (!text) return std::unexpected(text.error());
  auto root = json.parse(*text);
  if (!root) return std::unexpected(root.error());
  auto node = read_node_report(*root, opt);
  if (!node) return std::unexpected(node.error());
  node->input = folder.path() + "/" + name;
  return node;
}

std::expected<void, Failure> write_textfile(const Report& report, const std::string& path, bool probes_only) {
  std::error_code ec;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, ec)) {
    diag::note("{} is not a folder (is node_exporter installed?): no metrics written", folder.string());
    return {};
  }
  std::string text = probes_only ? render_prometheus_probes(report) : render_prometheus(report);
  if (auto written = write_output(path, text, 0644); !written)
    return fail(Exit::usage, "{}", written.error());
  return {};
}

} // namespace gpudoctor
