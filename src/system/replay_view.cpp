#include "system/replay_view.hpp"

#include "util/file_text.hpp"
#include "util/text.hpp"

#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t k_max_json_bytes = 256 * 1024 * 1024;

std::optional<std::string> slurp(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  auto size = fs::file_size(p, ec);
  if (ec || size > k_max_json_bytes) return std::nullopt;
  return read_whole_file(p);
}

// Reads an optional JSON file of the snapshot; absent is fine, malformed is an error naming the file.
std::expected<std::optional<Json>, std::string> load_json(const fs::path& root, const char* name) {
  std::error_code ec;
  fs::path p = root / name;
  if (!fs::exists(fs::symlink_status(p, ec))) return std::optional<Json>{};
  if (fs::is_symlink(fs::symlink_status(p, ec))) return std::unexpected(std::string(name) + " is a symlink");
  auto content = slurp(p);
  if (!content) return std::unexpected(std::string(name) + " cannot be read");
  auto j = parse_json(*content);
  if (!j) return std::unexpected(std::string(name) + " is not valid JSON: " + j.error());
  return std::optional<Json>(std::move(*j));
}

bool is_safe_relative(const std::string& rel) {
  if (rel.empty() || rel[0] == '/') return false;
  for (const auto& part : text::split(rel, '/'))
    if (part == "..") return false;
  return true;
}

} // namespace

std::expected<std::unique_ptr<ReplayView>, std::string> ReplayView::open(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::unexpected(root.string() + " is not a folder");
  std::unique_ptr<ReplayView> view(new ReplayView());
  view->m_root = fs::absolute(root, ec);

  auto manifest = load_json(root, "manifest.json");
  if (!manifest) return std::unexpected(manifest.error());
  if (!*manifest)
    return std::unexpected(root.string() + " has no manifest.json: it is not a gpudoctor snapshot");
  auto parsed = snapshot::manifest_from_json(**manifest);
  if (!parsed) return std::unexpected(parsed.error());
  view->m_manifest = *parsed;

  auto env = load_json(root, "env.json");
  if (!env) return std::unexpected(env.error());
  if (*env) {
    if (!(*env)->is_object()) return std::unexpected("env.json is not a JSON object");
    for (const auto& [name, value] : (*env)->items()) {
      if (!value.is_string()) return std::unexpected("env.json: value of " + name + " is not a string");
      view->m_env[name] = value.get<std::string>();
    }
  }

  auto identity = load_json(root, "identity.json");
  if (!identity) return std::unexpected(identity.error());
  if (*identity) {
    if (!(*identity)->is_object()) return std::unexpected("identity.json is not a JSON object");
    view->m_identity = snapshot::identity_from_json(**identity);
  }

  auto stats = load_json(root, "stat.json");
  if (!stats) return std::unexpected(stats.error());
  if (*stats) {
    if (!(*stats)->is_object()) return std::unexpected("stat.json is not a JSON object");
    for (const auto& [path, entry] : (*stats)->items()) {
      auto st = snapshot::stat_from_json(entry);
      if (!st) return std::unexpected("stat.json: " + path + ": " + st.error());
      view->m_stats[path] = *st;
    }
  }

  auto commands = load_json(root, "commands.json");
  if (!commands) return std::unexpected(commands.error());
  if (*commands) {
    if (!(*commands)->is_array()) return std::unexpected("commands.json is not a JSON array");
    std::size_t index = 0;
    for (const auto& entry : **commands) {
      std::string where = "commands.json entry " + std::to_string(index++);
      auto key = json_string(entry, "key");
      if (!key || key->empty()) return std::unexpected(where + " has no \"key\"");
      CommandResult r;
      r.key = *key;
      if (auto argv = entry.find("argv"); argv != entry.end() && argv->is_array())
        for (const auto& a : *argv)
          if (a.is_string()) r.argv.push_back(a.get<std::string>());
      r.found = json_bool(entry, "found").value_or(true);
      r.timed_out = json_bool(entry, "timed_out").value_or(false);
      r.unkillable = json_bool(entry, "unkillable").value_or(false);
      if (auto code = json_int(entry, "exit")) r.exit_code = static_cast<int>(*code);
      r.duration_ms = json_int(entry, "duration_ms").value_or(0);
      r.timeout_ms = json_int(entry, "timeout_ms").value_or(0);
      if (auto sig = json_int(entry, "signal")) r.signal = static_cast<int>(*sig);
      r.truncated = json_bool(entry, "truncated").value_or(false);
      r.error = json_string(entry, "error").value_or("");
      if (!r.found) r.exit_code = 127;
      for (auto [field, sink] : {std::pair{"stdout", &r.out}, std::pair{"stderr", &r.err}}) {
        auto file = json_string(entry, field);
        if (!file) continue;
        if (!is_safe_relative(*file))
          return std::unexpected(where + ": " + field + " path \"" + *file + "\" leaves the snapshot");
        auto resolved = snapshot::resolve_inside(view->m_root, *file, true);
        auto content = resolved ? slurp(*resolved) : std::nullopt;
        if (!content) return std::unexpected(where + ": " + field + " file \"" + *file + "\" is missing");
        *sink = *content;
      }
      view->m_commands[r.key] = std::move(r); // a later run of the same key wins, as it did live
    }
  }
  return view;
}

std::optional<std::string> ReplayView::read_file(const std::string& path) {
  auto p = snapshot::resolve_inside(m_root / "fs", path, true);
  if (!p) return std::nullopt;
  return slurp(*p);
}

std::optional<std::vector<std::string>> ReplayView::list_dir(const std::string& path) {
  std::set<std::string> names;
  bool found = false;
  if (auto p = snapshot::resolve_inside(m_root / "fs", path, true)) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(*p, ec))) {
      found = true;
      for (const auto& entry : fs::directory_iterator(*p, ec))
        if (entry.path().filename() != snapshot::k_keep_file) names.insert(entry.path().filename().string());
    }
  }
  // Device nodes live only in stat.json; they are children of their folder all the same.
  std::string prefix = path;
  if (prefix.empty() || prefix.back() != '/') prefix += '/';
  for (const auto& [stat_path, st] : m_stats) {
    if (stat_path == path && st.type == FileType::dir) found = true;
    if (!text::starts_with(stat_path, prefix)) continue;
    std::string rest = stat_path.substr(prefix.size());
    if (rest.empty()) continue;
    auto slash = rest.find('/');
    names.insert(rest.substr(0, slash));
    found = true;
  }
  if (!found) return std::nullopt;
  return std::vector<std::string>(names.begin(), names.end());
}

std::optional<std::string> ReplayView::read_link(const std::string& path) {
  auto p = snapshot::resolve_inside(m_root / "fs", path, false);
  if (!p) return std::nullopt;
  char buf[PATH_MAX];
  ssize_t n = ::readlink(p->c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<FileStat> ReplayView::stat(const std::string& path) {
  if (auto it = m_stats.find(path); it != m_stats.end()) return it->second;
  auto p = snapshot::resolve_inside(m_root / "fs", path, true);
  if (!p) return std::nullopt;
  struct stat st {};
  if (::lstat(p->c_str(), &st) != 0) return std::nullopt;
  FileStat fs;
  fs.type = S_ISDIR(st.st_mode) ? FileType::dir : S_ISREG(st.st_mode) ? FileType::file : FileType::other;
  fs.mode = fs.type == FileType::dir ? 0755 : 0644;
  fs.group = "root";
  return fs;
}

CommandResult ReplayView::run(const CommandSpec& spec) {
  if (auto it = m_commands.find(spec.key); it != m_commands.end()) return it->second;
  // Not recorded: that machine could not run it (or the snapshot predates the command).
  CommandResult r;
  r.key = spec.key;
  r.argv = spec.argv;
  r.found = false;
  r.exit_code = 127;
  return r;
}

} // namespace gpudoctor
