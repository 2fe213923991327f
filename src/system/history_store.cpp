#include "system/history_store.hpp"

#include "system/own_folder.hpp"
#include "system/root_trust.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/file_text.hpp"
#include "util/utc_time.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor::history {

namespace {

namespace fs = std::filesystem;

// A report is some ten to a few hundred kilobytes; one near this is not one gpudoctor kept.
constexpr std::size_t k_max_entry_bytes = std::size_t{64} << 20;
constexpr std::string_view k_suffix_ok = "-ok.json", k_suffix_error = "-error.json";
// "20261205T054947.123456Z": the part of a name before its suffix.
constexpr std::size_t k_stamp_size = 23;

bool digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string shown(const std::string& path) {
  return escape::one_line(path);
}

bool is_stale_temporary(std::string_view name) {
  return name.starts_with(".gpudoctor-") && name.ends_with(".tmp");
}

// Holds the folder's exclusive lock while it lives.
class FolderLock {
public:
  explicit FolderLock(int fd) : m_fd(fd) {}
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock() { ::flock(m_fd, LOCK_UN); }

private:
  int m_fd;
};

} // namespace

std::optional<Entry> entry_of(std::string_view name) {
  bool good = name.ends_with(k_suffix_ok);
  if (!good && !name.ends_with(k_suffix_error)) return std::nullopt;
  std::string_view stamp = name.substr(0, name.size() - (good ? k_suffix_ok : k_suffix_error).size());
  if (stamp.size() != k_stamp_size || stamp[8] != 'T' || stamp[15] != '.' || stamp[22] != 'Z' ||
      !digits(stamp.substr(0, 8)) || !digits(stamp.substr(9, 6)) || !digits(stamp.substr(16, 6)))
    return std::nullopt;
  Entry e;
  e.name = std::string(name);
  e.good = good;
  e.time = fmt::format("{}-{}-{}T{}:{}:{}Z", stamp.substr(0, 4), stamp.substr(4, 2), stamp.substr(6, 2),
                       stamp.substr(9, 2), stamp.substr(11, 2), stamp.substr(13, 2));
  return e;
}

std::string entry_name(std::time_t seconds, long micros, bool good) {
  return fmt::format("{}.{:06}Z{}", utc::format(seconds, "%Y%m%dT%H%M%S"), micros,
                     good ? k_suffix_ok : k_suffix_error);
}

std::vector<std::string> over_limits(const std::vector<Entry>& oldest_first, const Limits& limits) {
  std::vector<std::string> removed;
  if (oldest_first.empty()) return removed;
  auto newest_good =
      std::find_if(oldest_first.rbegin(), oldest_first.rend(), [](const Entry& e) { return e.good; });
  std::size_t count = 0;
  std::uint64_t bytes = 0;
  bool full = false;
  for (auto it = oldest_first.rbegin(); it != oldest_first.rend(); ++it) {
    bool always = it == oldest_first.rbegin() || it == newest_good;
    full = full || count + 1 > limits.max_reports || bytes + it->bytes > limits.max_bytes;
    if (full && !always) {
      removed.push_back(it->name);
      continue;
    }
    ++count;
    bytes += it->bytes;
  }
  return removed;
}

std::expected<Folder, std::string> Folder::open(const std::string& dir, bool create) {
  auto folder = open_own_folder(dir, create, "history");
  if (!folder) return std::unexpected(folder.error());
  return Folder(folder->fd, folder->path);
}

Folder::Folder(Folder&& other) noexcept : m_fd(other.m_fd), m_path(std::move(other.m_path)) {
  other.m_fd = -1;
}

Folder& Folder::operator=(Folder&& other) noexcept {
  std::swap(m_fd, other.m_fd);
  std::swap(m_path, other.m_path);
  return *this;
}

Folder::~Folder() {
  if (m_fd >= 0) ::close(m_fd);
}

std::expected<std::vector<Entry>, std::string> Folder::list() const {
  auto names = folder_names(m_fd, m_path);
  if (!names) return std::unexpected(names.error());
  std::vector<Entry> entries;
  for (const auto& name : *names) {
    auto e = entry_of(name);
    struct stat st {};
    if (!e || ::fstatat(m_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    e->bytes = static_cast<std::uint64_t>(st.st_size);
    entries.push_back(std::move(*e));
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return entries;
}

std::expected<std::string, std::string> Folder::read(const std::string& name) const {
  std::string where = shown(m_path + "/" + name);
  if (!entry_of(name)) return std::unexpected(fmt::format("{} is not a kept report", where));
  int fd = ::openat(m_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return std::unexpected(fmt::format("cannot open {}: {}", where, std::strerror(errno)));
  // Root's reports are root's, a user's the user's: a report anyone else could write is not read.
  std::optional<std::string> why = distrust_open_record(fd, ::geteuid());
  struct stat st {};
  if (!why && ::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) > k_max_entry_bytes)
    why = fmt::format("larger than {} MiB", k_max_entry_bytes >> 20);
  std::expected<std::string, std::string> text = std::unexpected(why.value_or(""));
  if (!why) text = read_descriptor(fd, k_max_entry_bytes);
  ::close(fd);
  if (!text) return std::unexpected(fmt::format("{} is not read: {}", where, text.error()));
  return text;
}

std::expected<Entry, std::string> Folder::add(std::string_view report, bool good, const Limits& limits) {
  if (::flock(m_fd, LOCK_EX) != 0)
    return std::unexpected(fmt::format("cannot lock {}: {}", shown(m_path), std::strerror(errno)));
  FolderLock lock(m_fd);
  // Under the lock no other gpudoctor writes here: a temporary file is one a killed writer left.
  if (auto names = folder_names(m_fd, m_path))
    for (const auto& name : *names)
      if (is_stale_temporary(name)) ::unlinkat(m_fd, name.c_str(), 0);
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::time_t seconds = now.tv_sec;
  long micros = now.tv_nsec / 1000;
  std::string name = entry_name(seconds, micros, good);
  // Two reports in one microsecond (or a clock set back onto a kept one): the next free microsecond.
  for (int tries = 0; tries < 1000; ++tries) {
    struct stat st {};
    if (::fstatat(m_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) break;
    if (++micros == 1000000) micros = 0, ++seconds;
    name = entry_name(seconds, micros, good);
  }
  if (auto kept = replace_in_folder(m_fd, name, m_path + "/" + name, 0600, fill_with(report)); !kept)
    return std::unexpected(kept.error());
  Entry entry = *entry_of(name);
  entry.bytes = report.size();
  auto entries = list();
  if (!entries) return std::unexpected(entries.error());
  for (const auto& old : over_limits(*entries, limits))
    if (::unlinkat(m_fd, old.c_str(), 0) != 0 && errno != ENOENT)
      return std::unexpected(
          fmt::format("cannot remove {}: {}", shown(m_path + "/" + old), std::strerror(errno)));
  return entry;
}

std::string needs_root(std::string_view what) {
  return fmt::format("{} needs root: the history is root's ({}, 0700, reports 0600: they hold the "
                     "machine's paths and environment). Run it with sudo, or name a folder of your own "
                     "with --history-dir",
                     what, k_system_dir);
}

} // namespace gpudoctor::history
