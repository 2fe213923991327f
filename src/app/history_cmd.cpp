// gpudoctor history: the reports `check --history` kept on this machine, newest first, each with when it was
// kept, the gpudoctor that wrote it and its errors and warnings (docs/fleet.md, "History").
#include "app/commands.hpp"
#include "app/history_keep.hpp"
#include "app/terminal_text.hpp"
#include "fleet/node_report.hpp"
#include "util/escape.hpp"
#include "util/json.hpp"
#include "util/json_reader.hpp"

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

struct Listed {
  history::Entry entry;
  std::string tool_version; // empty: not read
  StatusCounts counts{};
  std::string why_not; // why it could not be read
};

std::vector<Listed> read_all(const history::Folder& folder, const std::vector<history::Entry>& entries) {
  std::vector<Listed> out;
  JsonReader json(k_max_report_bytes);
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    Listed l{*it, {}, {}, {}};
    auto node = read_kept_report(folder, json, it->name, ReadOptions{});
    if (node) {
      l.tool_version = node->tool_version.empty() ? "?" : node->tool_version;
      l.counts = node->counts();
    } else {
      l.why_not = node.error();
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::string size_words(std::uint64_t bytes) {
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", double(bytes) / 1024);
  return fmt::format("{:.1f} MiB", double(bytes) / (1024 * 1024));
}

std::string as_text(const std::string& dir, const std::vector<Listed>& listed) {
  std::uint64_t bytes = 0;
  for (const auto& l : listed)
    bytes += l.entry.bytes;
  std::string out = fmt::format("gpudoctor history · {} · {} report{}, {}\n", escape::one_line(dir),
                                listed.size(), listed.size() == 1 ? "" : "s", size_words(bytes));
  if (listed.empty())
    return out + "  no report kept yet: `gpudoctor check --history` keeps one (the timer "
                 "gpudoctor-metrics.timer does every 5 minutes)\n";
  out += fmt::format("  {:<20}  {:<9}  {:>6}  {:>8}  {}\n", "kept (UTC)", "gpudoctor", "errors", "warnings",
                     "report");
  bool good_named = false;
  for (const auto& l : listed) {
    std::string mark;
    if (l.entry.good && !good_named && l.why_not.empty()) {
      mark = "  ← last good (diff --last-good)";
      good_named = true;
    }
    if (!l.why_not.empty()) {
      out += fmt::format("  {:<20}  unreadable: {}  {}\n", l.entry.time, escape::one_line(l.why_not),
                         l.entry.name);
      continue;
    }
    out += fmt::format("  {:<20}  {:<9}  {:>6}  {:>8}  {}{}\n", l.entry.time,
                       escape::one_line(l.tool_version), l.counts[static_cast<int>(Status::error)],
                       l.counts[static_cast<int>(Status::warn)], l.entry.name, mark);
  }
  return out;
}

std::string as_json(const std::string& dir, const std::vector<Listed>& listed) {
  Json reports = Json::array();
  for (const auto& l : listed) {
    Json r = {{"name", l.entry.name},
              {"time", l.entry.time},
              {"good", l.entry.good},
              {"bytes", l.entry.bytes},
              {"tool_version", l.why_not.empty() ? Json(l.tool_version) : Json(nullptr)}};
    if (l.why_not.empty())
      r["summary"] = {{"pass", l.counts[static_cast<int>(Status::pass)]},
                      {"info", l.counts[static_cast<int>(Status::info)]},
                      {"warn", l.counts[static_cast<int>(Status::warn)]},
                      {"error", l.counts[static_cast<int>(Status::error)]},
                      {"skip", l.counts[static_cast<int>(Status::skip)]}};
    else
      r["unreadable"] = l.why_not;
    reports.push_back(std::move(r));
  }
  Json doc = {{"format", "gpudoctor-history"}, {"version", 1}, {"folder", dir}, {"reports", reports}};
  return dump_json(doc) + "\n";
}

} // namespace

Outcome cmd_history(const HistoryOptions& opt) {
  auto dir = history_folder(opt.history_dir, "gpudoctor history");
  if (!dir) return std::unexpected(dir.error());
  std::vector<Listed> listed;
  std::string shown = *dir;
  std::error_code ec;
  if (std::filesystem::exists(*dir, ec)) {
    auto folder = history::Folder::open(*dir, false);
    if (!folder) return fail(Exit::usage, "{}", folder.error());
    auto entries = folder->list();
    if (!entries) return fail(Exit::usage, "{}", entries.error());
    listed = read_all(*folder, *entries);
    shown = folder->path();
  }
  std::string out = opt.format == "json" ? as_json(shown, listed) : as_text(shown, listed);
  if (opt.format == "json")
    std::fwrite(out.data(), 1, out.size(), stdout);
  else
    print_fitted(out);
  return Exit::ok;
}

} // namespace gpudoctor
