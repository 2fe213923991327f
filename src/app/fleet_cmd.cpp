// gpudoctor fleet: many nodes' reports side by side. Inputs are read by a pool of threads (one per core),
// each with its own JSON reader; nodes join the fleet under one lock, and the input order names them.
#include "app/commands.hpp"
#include "app/compare_output.hpp"
#include "app/report_input.hpp"
#include "app/terminal_text.hpp"
#include "fleet/fleet.hpp"
#include "report/fleet_render.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

namespace gpudoctor {

namespace {

struct Read {
  Fleet fleet;
  std::size_t skipped = 0; // JSON files in folders that are not gpudoctor reports
};

Read read_all(const std::vector<ReportInput>& inputs, const FleetOptions& opt) {
  FleetBuilder builder(inputs.size());
  std::mutex lock;
  std::atomic<std::size_t> next{0}, skipped{0};
  auto work = [&] {
    InputReader reader(InputOptions{false, opt.rejudge});
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      auto node = reader.read(inputs[i].path);
      if (!node && inputs[i].found_in_folder && node.error() == k_not_a_report) {
        ++skipped;
        continue;
      }
      std::lock_guard guard(lock);
      if (node)
        builder.add(i, std::move(*node));
      else
        builder.unreadable(i, inputs[i].path, node.error());
    }
  };
  std::size_t threads =
      opt.jobs > 0 ? static_cast<std::size_t>(opt.jobs) : std::thread::hardware_concurrency();
  threads = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(1, inputs.size()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (auto& t : pool)
    t.join();
  return {builder.finish(), skipped.load()};
}

// The node's own HTML report beside its input (a snapshot folder's report.html; NAME.html beside NAME.json),
// as a link from the folder the fleet page is written to (the current one for stdout); "" where none is.
std::string page_of(const std::string& input, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path in(input), page;
  if (fs::is_directory(in, ec))
    page = in / "report.html";
  else if (in.extension() == ".json")
    page = fs::path(in).replace_extension(".html");
  if (page.empty() || !fs::is_regular_file(page, ec)) return {};
  fs::path base = output.empty() ? fs::current_path(ec) : fs::absolute(output, ec).parent_path();
  fs::path rel = fs::absolute(page, ec).lexically_normal().lexically_relative(base.lexically_normal());
  return rel.empty() ? std::string() : escape::url_path(rel.generic_string());
}

std::string render(const Fleet& fleet, const FleetOptions& opt) {
  if (opt.format == "json") return dump_json(fleet_to_json(fleet)) + "\n";
  if (opt.format == "html") return render_fleet_html(fleet);
  return render_fleet_text(fleet, FleetTextOptions{opt.verbose, use_color(opt.color, opt.output)});
}

} // namespace

Outcome cmd_fleet(const FleetOptions& opt) {
  auto inputs = expand_inputs(opt.paths);
  Read read = read_all(inputs, opt);
  if (read.skipped)
    diag::note("{} JSON files in the folders are no gpudoctor reports (skipped)", read.skipped);
  if (read.fleet.nodes.empty()) {
    // A line per input that could not be read; the last one also says that nothing is left to compare.
    const auto& bad = read.fleet.unreadable;
    if (bad.empty())
      return fail(Exit::usage, "no report to compare (give reports, snapshots, bundles or folders of them)");
    for (std::size_t i = 0; i + 1 < bad.size(); ++i)
      diag::error("{}: {}", bad[i].input, bad[i].error);
    return fail(Exit::usage, "{}: {}; no report to compare", bad.back().input, bad.back().error);
  }
  if (opt.format == "html")
    for (auto& node : read.fleet.nodes)
      node.page = page_of(node.input, opt.output);
  if (auto written = emit(render(read.fleet, opt), opt.output, opt.format == "text"); !written)
    return std::unexpected(written.error());
  const Fleet& f = read.fleet;
  // The page names the inputs it could not read; the status says some were.
  if (!f.unreadable.empty()) return Exit::usage;
  if (f.nodes_with(Status::error) > 0) return Exit::findings;
  if (opt.strict && (f.nodes_with(Status::warn) > 0 || f.drifting_rows() > 0)) return Exit::findings;
  return Exit::ok;
}

} // namespace gpudoctor
