#include "system/temp_files.hpp"

#include "system/process_table.hpp"
#include "system/root_trust.hpp"
#include "util/temp_dir.hpp"
#include "util/text.hpp"

#include <cctype>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor::temp {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_prefix = "gpudoctor-";

// Never destroyed: the interruption may come while main's statics are being destroyed.
struct Registry {
  std::mutex mutex;
  std::set<fs::path> paths;
  std::vector<fs::path> placeholders;
  bool closed = false; // interrupted: nothing new is created
};

Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

bool all_of(const std::string& s, int (*is)(int)) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [&](char c) { return is(static_cast<unsigned char>(c)); });
}

std::string boot_tag(const std::string& boot_id) {
  return boot_id.empty() ? std::string("0") : boot_id.substr(0, 16);
}

// `path` replaced, atomically, by an empty placeholder file: a thread that still writes below it fails.
void take_away(const fs::path& path, std::vector<fs::path>& placeholders) {
  std::error_code ec;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    fs::remove(path, ec);
    return;
  }
  fs::path doomed = path.string() + ".removing";
  if (::rename(path.c_str(), doomed.c_str()) != 0) {
    fs::remove_all(path, ec);
    return;
  }
  int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    placeholders.push_back(path);
  }
  fs::remove_all(doomed, ec);
}

} // namespace

std::expected<fs::path, std::string> base_folder() {
  auto root = temp_root(); // a bad TMPDIR is said, never replaced by the current folder
  if (!root || ::geteuid() != 0) return root;
  if (auto d = distrust_for_root_writes(root->string()))
    return std::unexpected(fmt::format(
        "TMPDIR {}{}{}: as root, gpudoctor makes its temporary folders only where no other user can change "
        "them (root's own folders, or a sticky one such as /tmp); set TMPDIR to such a folder or unset it",
        root->string(), d->path == root->string() ? " is " : ": ", d->describe(root->string())));
  return root;
}

std::expected<Folder, std::string> Folder::create(const std::string& kind) {
  auto root = base_folder();
  if (!root) return std::unexpected(root.error());
  fs::path base = *root;
  auto self = proc::process_info(static_cast<int>(::getpid()));
  std::string name = fmt::format("{}{}-{}-{}-{}-XXXXXX", k_prefix, kind, ::getpid(),
                                 self ? self->start_time : 0, boot_tag(proc::boot_id()));
  std::string tmpl = (base / name).string();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.closed) return std::unexpected("gpudoctor is being interrupted");
  if (!::mkdtemp(tmpl.data()))
    return std::unexpected(fmt::format("cannot create a temporary folder in {}", base.string()));
  r.paths.insert(tmpl);
  return Folder(tmpl);
}

Folder::Folder(Folder&& other) noexcept : m_path(std::move(other.m_path)) {
  other.m_path.clear();
}

Folder& Folder::operator=(Folder&& other) noexcept {
  std::swap(m_path, other.m_path);
  return *this;
}

Folder::~Folder() {
  if (m_path.empty()) return;
  std::error_code ec;
  fs::remove_all(m_path, ec);
  untrack(m_path);
}

void track(const fs::path& path) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.paths.insert(path);
}

void untrack(const fs::path& path) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.closed) r.paths.erase(path);
}

void freeze() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.closed = true;
}

void remove_all_registered() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.closed = true;
  for (const auto& p : r.paths)
    take_away(p, r.placeholders);
  r.paths.clear();
}

void release_placeholders() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& p : r.placeholders)
    ::unlink(p.c_str());
  r.placeholders.clear();
}

bool is_stale_name(const std::string& name, const std::string& boot_id,
                   const std::function<std::optional<unsigned long long>(int)>& start_time_of) {
  if (!text::starts_with(name, k_prefix)) return false;
  // kind, pid, start time, boot, then mkdtemp's suffix (and ".removing" when an interruption was cut short).
  auto parts = text::split(name.substr(std::string(k_prefix).size()), '-');
  if (parts.size() != 5 || !all_of(parts[0], std::isalpha) || !all_of(parts[1], std::isdigit) ||
      !all_of(parts[2], std::isdigit) || !all_of(parts[3], std::isxdigit) || parts[4].size() < 6 ||
      parts[1].size() > 9 || parts[2].size() > 19)
    return false;
  if (parts[3] != boot_tag(boot_id)) return true; // made during another boot: its maker is gone
  auto started = start_time_of(std::stoi(parts[1]));
  return !started || *started != std::stoull(parts[2]);
}

std::vector<fs::path> remove_stale() {
  std::vector<fs::path> removed;
  std::error_code ec;
  auto root = base_folder(); // as root, never a folder another user can change below it
  if (!root) return removed;
  fs::path base = *root;
  std::string boot = proc::boot_id();
  auto start_time_of = [](int pid) -> std::optional<unsigned long long> {
    auto p = proc::process_info(pid);
    if (!p || p->gone()) return std::nullopt;
    return p->start_time;
  };
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    std::string name = entry.path().filename().string();
    if (!text::starts_with(name, k_prefix)) continue;
    struct stat st {};
    // Only this user's own folders (and placeholders), never through a link.
    if (::lstat(entry.path().c_str(), &st) != 0 || st.st_uid != ::geteuid() ||
        !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
      continue;
    if (!is_stale_name(name, boot, start_time_of)) continue;
    std::error_code rm;
    fs::remove_all(entry.path(), rm);
    if (!rm) removed.push_back(entry.path());
  }
  return removed;
}

} // namespace gpudoctor::temp
