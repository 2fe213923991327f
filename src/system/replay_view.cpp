#include "system/replay_view.hpp"

#include "system/pci_functions.hpp"
#include "system/process.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

#include <climits>
#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

static_assert(snapshot::k_max_command_output_bytes == ProcessLimits{}.max_output_bytes,
              "a recorded output is at most what run_process keeps of a stream");

// A regular file's content when it is at most `max_bytes`; never opens anything else (a FIFO would block).
std::optional<std::string> slurp(const fs::path& p, std::uint64_t max_bytes) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return std::nullopt;
  return read_whole_file(p);
}

// The text of a JSON file of the snapshot: absent is fine (nullopt), anything but a regular file within
// `max_bytes` is an error naming the file. Its size is checked before it is read.
std::expected<std::optional<std::string>, std::string>
snapshot_json_text(const fs::path& root, const char* name, std::uint64_t max_bytes) {
  struct stat st {};
  if (::lstat((root / name).c_str(), &st) != 0) return std::optional<std::string>{};
  if (S_ISLNK(st.st_mode)) return std::unexpected(fmt::format("{} is a symlink", name));
  if (!S_ISREG(st.st_mode)) return std::unexpected(fmt::format("{} is not a regular file", name));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return std::unexpected(fmt::format("{} is larger than {} MiB: refused", name, max_bytes >> 20));
  auto content = read_whole_file(root / name);
  if (!content) return std::unexpected(fmt::format("{} cannot be read", name));
  return content;
}

// Reads one optional JSON file with `reader` into `sink`; an error names the file.
template <class Reader, class Sink>
std::expected<void, std::string> load(const fs::path& root, const char* name, std::uint64_t max_bytes,
                                      Reader reader, Sink& sink) {
  auto text = snapshot_json_text(root, name, max_bytes);
  if (!text) return std::unexpected(text.error());
  if (!*text) return {};
  auto read = reader(**text);
  if (!read.ok()) return std::unexpected(read.error);
  sink = std::move(read.value);
  return {};
}

// fs/ is where every machine path is resolved: a symlink there would hand the walk the analyst's own files
// (fs -> /), so it must be a real folder of the snapshot, or absent (nothing was read).
std::expected<bool, std::string> check_fs_folder(const fs::path& root) {
  struct stat st {};
  if (::lstat((root / "fs").c_str(), &st) != 0) return false;
  if (S_ISLNK(st.st_mode))
    return std::unexpected("fs is a symlink: a snapshot's fs/ must be a folder inside it");
  if (!S_ISDIR(st.st_mode)) return std::unexpected("fs is not a folder");
  return true;
}

} // namespace

std::expected<std::unique_ptr<ReplayView>, std::string> ReplayView::open(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::unexpected(root.string() + " is not a folder");
  std::unique_ptr<ReplayView> view(new ReplayView());
  view->m_root = fs::absolute(root, ec);
  auto has_fs = check_fs_folder(view->m_root);
  if (!has_fs) return std::unexpected(has_fs.error());
  view->m_has_fs = *has_fs;

  auto manifest = snapshot_json_text(view->m_root, "manifest.json", snapshot::k_max_manifest_bytes);
  if (!manifest) return std::unexpected(manifest.error());
  if (!*manifest)
    return std::unexpected(root.string() + " has no manifest.json: it is not a gpudoctor snapshot");
  auto parsed = snapshot::read_manifest(**manifest);
  if (!parsed.ok()) return std::unexpected(parsed.error);
  view->m_manifest = std::move(parsed.value);

  std::vector<snapshot::RecordedCommand> commands;
  const fs::path& at = view->m_root;
  if (auto r = load(at, "env.json", snapshot::k_max_env_bytes, snapshot::read_env, view->m_env); !r)
    return std::unexpected(r.error());
  if (auto r = load(at, "identity.json", snapshot::k_max_identity_bytes, snapshot::read_identity,
                    view->m_identity);
      !r)
    return std::unexpected(r.error());
  if (auto r = load(at, "stat.json", snapshot::k_max_stat_bytes, snapshot::read_stats, view->m_stats); !r)
    return std::unexpected(r.error());
  if (auto r = load(at, "commands.json", snapshot::k_max_commands_bytes, snapshot::read_commands, commands);
      !r)
    return std::unexpected(r.error());

  std::size_t index = 0;
  for (auto& c : commands) {
    for (auto [field, file, sink] : {std::tuple{"stdout", &c.out_file, &c.result.out},
                                     std::tuple{"stderr", &c.err_file, &c.result.err}}) {
      if (file->empty()) continue;
      auto resolved = snapshot::resolve_inside(view->m_root, *file, true);
      auto content = resolved ? slurp(*resolved, snapshot::k_max_command_output_bytes) : std::nullopt;
      if (!content)
        return std::unexpected(
            fmt::format("commands.json entry {}: {} file \"{}\" is missing, not a file, or "
                        "larger than {} MiB",
                        index, field, *file, snapshot::k_max_command_output_bytes >> 20));
      *sink = std::move(*content);
    }
    ++index;
    std::string key = c.result.key;
    for (const auto& u : c.result.untrusted) // every run's, also of a key a later run answers
      if (std::none_of(view->m_untrusted.begin(), view->m_untrusted.end(), [&](const auto& seen) {
            return seen.second.path == u.path && seen.second.ran_as == u.ran_as;
          }))
        view->m_untrusted.emplace_back(key, u);
    view->m_commands[key] = std::move(c.result); // a later run of the same key wins, as it did live
  }
  // Counted before any collector reads them: each costs reads and checks, and no machine holds this many.
  if (count_physical_gpu_functions(*view, snapshot::k_max_display_functions) >
      snapshot::k_max_display_functions)
    return std::unexpected(fmt::format("sys/bus/pci/devices lists more than {} display functions (SR-IOV "
                                       "virtual functions not counted): refused",
                                       snapshot::k_max_display_functions));
  return view;
}

std::optional<fs::path> ReplayView::in_fs(const std::string& path, bool follow_final) const {
  // Checked again on every read: the walk trusts its root, and fs/ is the one component above it.
  if (!m_has_fs || !check_fs_folder(m_root).value_or(false)) return std::nullopt;
  return snapshot::resolve_inside(m_root / "fs", path, follow_final, &m_lookups);
}

std::optional<std::string> ReplayView::read_file(const std::string& path) {
  auto p = in_fs(path, true);
  if (!p) return std::nullopt;
  return slurp(*p, k_max_read_bytes);
}

std::optional<std::uint64_t> ReplayView::file_size(const std::string& path) {
  auto p = in_fs(path, true);
  struct stat st {};
  if (!p || ::lstat(p->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

std::optional<std::vector<std::string>> ReplayView::list_dir(const std::string& path) {
  std::set<std::string> names;
  bool found = false;
  if (auto p = in_fs(path, true)) {
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
  if (auto it = m_stats.find(path); it != m_stats.end() && it->second.type == FileType::dir) found = true;
  // Only the paths below `path`, which sort together: not a walk of all of stat.json per listing.
  for (auto it = m_stats.lower_bound(prefix); it != m_stats.end() && text::starts_with(it->first, prefix);
       ++it) {
    std::string rest = it->first.substr(prefix.size());
    if (rest.empty()) continue;
    names.insert(rest.substr(0, rest.find('/')));
    found = true;
  }
  if (!found) return std::nullopt;
  return std::vector<std::string>(names.begin(), names.end());
}

std::optional<std::string> ReplayView::read_link(const std::string& path) {
  auto p = in_fs(path, false);
  if (!p) return std::nullopt;
  char buf[PATH_MAX];
  ssize_t n = ::readlink(p->c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<FileStat> ReplayView::stat(const std::string& path) {
  if (auto it = m_stats.find(path); it != m_stats.end()) return it->second;
  auto p = in_fs(path, true);
  if (!p) return std::nullopt;
  struct stat st {};
  if (::lstat(p->c_str(), &st) != 0) return std::nullopt;
  FileStat fs;
  fs.type = S_ISDIR(st.st_mode) ? FileType::dir : S_ISREG(st.st_mode) ? FileType::file : FileType::other;
  fs.mode = fs.type == FileType::dir ? 0755 : 0644;
  fs.group = "root";
  return fs;
}

std::optional<std::string> ReplayView::summary(const std::string& key, const std::vector<std::string>&,
                                               const Derive&) {
  auto it = m_commands.find(key);
  if (it == m_commands.end() || !it->second.ok()) return std::nullopt;
  return it->second.out;
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
