#include "app/report_input.hpp"

#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

constexpr int k_max_walk_depth = 8;

bool bundle_name(const std::string& name) {
  return text::ends_with(name, ".tar.gz") || text::ends_with(name, ".tgz");
}

void walk(const fs::path& dir, std::vector<ReportInput>& out) {
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const auto& entry = *it;
    std::error_code ignored;
    if (entry.is_symlink(ignored)) continue; // a link in a folder of reports is not followed
    std::string name = entry.path().filename().string();
    if (entry.is_directory(ignored)) {
      if (fs::exists(entry.path() / "manifest.json", ignored)) {
        found.push_back(entry.path().string()); // a snapshot: one input, not a folder of inputs
        it.disable_recursion_pending();
      } else if (it.depth() >= k_max_walk_depth) {
        it.disable_recursion_pending();
      }
    } else if (entry.is_regular_file(ignored) && (text::ends_with(name, ".json") || bundle_name(name))) {
      found.push_back(entry.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  for (auto& f : found)
    out.push_back({std::move(f), true});
}

// A file that starts with '{' (after white space) is read as a JSON report, anything else as a bundle.
bool looks_like_json(const std::string& path) {
  if (text::ends_with(path, ".json")) return true;
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c == '{';
  return false;
}

// Judging is rare (snapshots, old bundles): one at a time, with the knowledge tables loaded once.
struct Judge {
  std::mutex mutex;
  std::optional<std::expected<Loaded, Failure>> data;
};

Judge& judge_state() {
  static Judge judge;
  return judge;
}

std::vector<NodeProperty> package_properties(const PackageFacts& packages) {
  std::vector<NodeProperty> out;
  if (!packages.readable) return out;
  std::string group = fmt::format("System packages ({})", packages.manager);
  for (const auto& [name, version] : packages.installed)
    out.push_back({950, group, name, version});
  return out;
}

// The report of a snapshot judged now, as `check --from` writes it; with its package list for a diff.
std::expected<std::string, std::string> judge_now(ReplayView& view, bool details,
                                                  std::vector<NodeProperty>& packages) {
  Judge& j = judge_state();
  std::lock_guard lock(j.mutex);
  if (!j.data) j.data = load_data(CheckOptions{});
  if (!*j.data) return std::unexpected(j.data->error().message);
  auto judged = run_pipeline(view, **j.data, CheckOptions{});
  if (!judged) return std::unexpected(judged.error().message);
  Report report = std::move(*judged);
  report.source_kind = "snapshot";
  if (details) packages = package_properties(report.facts.packages);
  return dump_json(report_to_json(report));
}

} // namespace

std::vector<ReportInput> expand_inputs(const std::vector<std::string>& paths) {
  std::vector<ReportInput> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec) && !fs::exists(fs::path(p) / "manifest.json", ec))
      walk(p, out);
    else
      out.push_back({p, false});
  }
  return out;
}

std::string pseudonym_key(const std::string& note) {
  constexpr std::string_view site = "site's key ";
  if (auto at = note.find(site); at != std::string::npos) {
    std::string id = note.substr(at + site.size(), 8);
    bool hex = id.size() == 8 && std::all_of(id.begin(), id.end(), [](char c) {
                 return std::isxdigit(static_cast<unsigned char>(c));
               });
    if (hex) return "site key " + id;
  }
  if (note.find("random key") != std::string::npos) return "a key of this bundle alone";
  if (note.find("obfuscated") != std::string::npos) return "obfuscated";
  return "none";
}

std::expected<NodeReport, std::string> InputReader::read(const std::string& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return std::unexpected("no such file or folder");
  if (fs::is_directory(status)) {
    if (!fs::exists(fs::path(path) / "manifest.json", ec))
      return std::unexpected("a folder without manifest.json is no snapshot");
    return read_snapshot(path, true);
  }
  if (looks_like_json(path)) return read_report_file(path);
  return read_snapshot(path, false);
}

std::expected<NodeReport, std::string> InputReader::read_report_file(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec); // a link named on the command line is the user's to follow
  auto root = m_json.parse_file(ec ? fs::path(path) : real);
  if (!root) return std::unexpected(root.error());
  auto node = read_node_report(*root, ReadOptions{m_opt.details});
  if (!node) return std::unexpected(node.error());
  node->input = path;
  node->origin = "report";
  return node;
}

std::expected<NodeReport, std::string> InputReader::read_snapshot(const std::string& path, bool folder) {
  auto snap = OpenedSnapshot::open(path);
  // The reader's errors say why, and the caller names the input: a snapshot's own error may start with it.
  if (!snap) {
    const std::string& why = snap.error();
    return std::unexpected(why.starts_with(path + ": ") ? why.substr(path.size() + 2) : why);
  }
  std::string origin = folder ? "the snapshot's report" : "the bundle's report";
  std::expected<NodeReport, std::string> node = std::unexpected("");
  std::error_code ec;
  fs::path held = (*snap)->root() / "report.json";
  std::vector<NodeProperty> packages;
  if (m_opt.judge) {
    origin = "judged now";
  } else if (!fs::exists(fs::symlink_status(held, ec))) {
    origin = "judged now (no report.json)";
  } else if (auto root = m_json.parse_file(held); !root) {
    origin = fmt::format("judged now (report.json: {})", root.error());
  } else if (node = read_node_report(*root, ReadOptions{m_opt.details}); !node) {
    origin = fmt::format("judged now (report.json: {})", node.error());
  }
  if (!node) {
    auto json = judge_now((*snap)->view(), m_opt.details, packages);
    if (!json) return std::unexpected(json.error());
    auto root = m_json.parse(*json);
    if (!root) return std::unexpected(root.error());
    node = read_node_report(*root, ReadOptions{m_opt.details});
    if (!node) return std::unexpected(node.error());
  }
  node->input = path;
  node->origin = origin;
  node->properties.push_back({901, "Bundle", "pseudonyms", pseudonym_key((*snap)->view().manifest().note)});
  node->properties.insert(node->properties.end(), packages.begin(), packages.end());
  return node;
}

} // namespace gpudoctor
