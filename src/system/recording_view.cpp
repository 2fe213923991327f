#include "system/recording_view.hpp"

#include "system/path_walk.hpp"
#include "system/record_excerpts.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

RecordingView::RecordingView(LiveView& live, fs::path out_dir, std::string tool)
    : m_live(live), m_dir(std::move(out_dir)), m_tool(std::move(tool)), m_guard(live, ::geteuid() == 0) {
  std::error_code ec;
  fs::create_directories(m_dir / "fs", ec);
  if (ec) failed_write(fmt::format("cannot create {}: {}", (m_dir / "fs").string(), ec.message()));
}

bool RecordingView::refused(const std::string& path, bool folder) {
  auto why = m_guard.refuse(path, folder);
  if (!why) return false;
  std::lock_guard lock(m_mutex);
  m_skipped.emplace_back(path, *why);
  return true;
}

std::vector<std::pair<std::string, std::string>> RecordingView::skipped() {
  std::lock_guard lock(m_mutex);
  return m_skipped;
}

std::map<std::string, std::string> RecordingView::left_out_files() {
  std::lock_guard lock(m_mutex);
  return m_left_out;
}

void RecordingView::leave_out(const std::string& path, const std::string& why) {
  stat(path); // in stat.json: a replay still lists the file in its folder, and asks left_out why it is empty
  std::lock_guard lock(m_mutex);
  m_left_out[path] = why;
  // Found where the recording put it (through the links it recorded), never created on the way.
  if (auto recorded = snapshot::resolve_inside(m_dir / "fs", path, true)) {
    std::error_code ec;
    if (fs::is_regular_file(fs::symlink_status(*recorded, ec)) && !fs::remove(*recorded, ec) && ec)
      failed_write(fmt::format("cannot drop {} from the snapshot: {}", recorded->string(), ec.message()));
  }
}

void RecordingView::write_file(const fs::path& where, const std::string& content) {
  std::error_code ec;
  fs::create_directories(where.parent_path(), ec);
  if (auto written = write_whole_file(where, content); !written) failed_write(written.error());
}

void RecordingView::failed_write(std::string why) {
  constexpr std::size_t k_kept = 8; // enough to say what happened; a full disk fails every write after
  std::lock_guard lock(m_failures_mutex);
  if (m_write_failures.size() < k_kept &&
      std::find(m_write_failures.begin(), m_write_failures.end(), why) == m_write_failures.end())
    m_write_failures.push_back(std::move(why));
}

std::vector<std::string> RecordingView::write_failures() {
  std::lock_guard lock(m_failures_mutex);
  return m_write_failures;
}

std::optional<fs::path> RecordingView::mirror_path(const std::string& path, bool follow_final) {
  auto fs_path = [&](const std::vector<std::string>& parts) {
    fs::path p = m_dir / "fs";
    for (const auto& part : parts)
      p /= part;
    return p;
  };
  // Each link met on the way is recorded as the machine has it, so replay's walk meets the same links.
  auto look = [&](const std::vector<std::string>& parts) {
    std::string live_path = "/" + text::join(parts, "/");
    auto st = m_live.lstat(live_path);
    if (!st) return PathNode{};
    if (st->type != FileType::link) return PathNode{true, std::nullopt};
    auto target = m_live.read_link(live_path);
    if (!target) return PathNode{};
    fs::path link_at = fs_path(parts);
    std::error_code ec;
    fs::create_directories(link_at.parent_path(), ec);
    if (!fs::is_symlink(fs::symlink_status(link_at, ec))) {
      fs::remove(link_at, ec); // an empty placeholder from a listing
      fs::create_symlink(*target, link_at, ec);
    }
    return PathNode{true, target};
  };
  auto parts = walk_path(path, follow_final, look);
  if (!parts) return std::nullopt;
  return fs_path(*parts);
}

std::optional<std::string> RecordingView::read_file(const std::string& path) {
  if (refused(path, false)) return std::nullopt;
  auto content = m_live.read_file(path);
  if (!content) return content;
  auto rule = excerpts::rule_for(path);
  std::lock_guard lock(m_mutex);
  if (auto where = mirror_path(path, true)) {
    write_file(*where, rule ? excerpts::apply(*rule, *content) : *content);
    if (rule) m_excerpts[path] = std::string(*rule);
  }
  return content;
}

void RecordingView::record_child(const std::string& dir_path, const fs::path& mirrored_dir,
                                 const std::string& name) {
  std::string child = dir_path == "/" ? "/" + name : dir_path + "/" + name;
  // Looked at where the folder resolved to (mirrored_dir is below fs/): a link on the way, such as
  // /var/run -> /run, is then the recorded machine's, even when the machine is a folder (bundle --root).
  std::string resolved = "/" + mirrored_dir.lexically_relative(m_dir / "fs").generic_string();
  if (resolved == "/.") resolved = "/";
  std::string real = resolved == "/" ? "/" + name : resolved + "/" + name;
  auto st = m_live.lstat(real);
  if (!st) return;
  fs::path at = mirrored_dir / name;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(at, ec))) return; // already recorded with content
  switch (st->type) {
  case FileType::link:
    if (auto target = m_live.read_link(real)) fs::create_symlink(*target, at, ec);
    if (ec) failed_write(fmt::format("cannot record the link {}: {}", at.string(), ec.message()));
    break;
  case FileType::dir:
    fs::create_directories(at, ec);
    if (ec) failed_write(fmt::format("cannot record the folder {}: {}", at.string(), ec.message()));
    break;
  case FileType::file:
    write_file(at, "");
    break;
  default:
    m_stats[child] = snapshot::stat_to_json(*st);
    break; // device nodes live only in stat.json
  }
}

std::optional<std::vector<std::string>> RecordingView::list_dir(const std::string& path) {
  if (refused(path, true)) return std::nullopt;
  auto names = m_live.list_dir(path);
  if (!names) return names;
  std::lock_guard lock(m_mutex);
  if (auto where = mirror_path(path, true)) {
    std::error_code ec;
    fs::create_directories(*where, ec);
    for (const auto& name : *names)
      record_child(path, *where, name);
  }
  return names;
}

std::optional<std::string> RecordingView::read_link(const std::string& path) {
  auto target = m_live.read_link(path);
  if (!target) return target;
  std::lock_guard lock(m_mutex);
  mirror_path(path, false);
  return target;
}

std::optional<FileStat> RecordingView::stat(const std::string& path) {
  auto st = m_live.stat(path);
  if (!st) return st;
  std::lock_guard lock(m_mutex);
  m_stats[path] = snapshot::stat_to_json(*st);
  return st;
}

CommandResult RecordingView::run(const CommandSpec& spec) {
  CommandResult r = m_live.run(spec);
  std::lock_guard lock(m_mutex);
  std::string stem = snapshot::command_file_stem(m_commands.size(), spec.key);
  std::string out_file, err_file;
  if (!r.out.empty()) {
    out_file = "cmd/" + stem + ".out";
    write_file(m_dir / out_file, r.out);
  }
  if (!r.err.empty()) {
    err_file = "cmd/" + stem + ".err";
    write_file(m_dir / err_file, r.err);
  }
  m_commands.push_back(snapshot::command_to_json(r, out_file, err_file));
  return r;
}

std::optional<std::string>
RecordingView::summary(const std::string& key, const std::vector<std::string>& what, const Derive& derive) {
  std::optional<std::string> answer = derive(m_live);
  CommandResult r;
  r.key = key;
  r.argv = what;
  r.found = true;
  r.exit_code = answer ? 0 : 1;
  r.out = answer.value_or("");
  std::lock_guard lock(m_mutex);
  std::string stem = snapshot::command_file_stem(m_commands.size(), key);
  std::string out_file;
  if (!r.out.empty()) {
    out_file = "cmd/" + stem + ".out";
    write_file(m_dir / out_file, r.out);
  }
  m_commands.push_back(snapshot::command_to_json(r, out_file, ""));
  return answer;
}

// The live view's environment and identity are fixed when it is made: each is written down once, at the
// first question (collectors ask for single variables hundreds of times).
void RecordingView::record_environment() {
  std::lock_guard lock(m_mutex);
  if (m_env_recorded) return;
  m_env_recorded = true;
  Json j = Json::object();
  for (const auto& [name, value] : m_live.environment())
    j[name] = value;
  write_file(m_dir / "env.json", dump_json(j));
}

std::map<std::string, std::string> RecordingView::environment() {
  record_environment();
  return m_live.environment();
}

std::optional<std::string> RecordingView::env(const std::string& name) {
  record_environment();
  return m_live.env(name);
}

Identity RecordingView::identity() {
  auto id = m_live.identity();
  std::lock_guard lock(m_mutex);
  if (!m_identity_recorded) write_file(m_dir / "identity.json", dump_json(snapshot::identity_to_json(id)));
  m_identity_recorded = true;
  return id;
}

std::map<std::string, std::string> RecordingView::excerpted_files() {
  std::lock_guard lock(m_mutex);
  return m_excerpts;
}

void RecordingView::finish(const snapshot::Manifest& manifest) {
  std::lock_guard lock(m_mutex);
  snapshot::Manifest written = manifest;
  written.excerpts = m_excerpts;
  write_file(m_dir / "manifest.json", dump_json(snapshot::manifest_to_json(written)));
  write_file(m_dir / "stat.json", dump_json(m_stats));
  write_file(m_dir / "commands.json", dump_json(m_commands));
}

} // namespace gpudoctor
