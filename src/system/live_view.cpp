#include "system/live_view.hpp"

#include "system/process.hpp"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <optional>
#include <pwd.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <climits>

extern char** environ;

namespace gpudoctor {

namespace {

// The re-entrant lookups: collectors stat files from several threads at once, and getgrgid/getpwuid hand
// back one static buffer that another thread may overwrite while it is read.
template <class Entry, class Lookup>
bool lookup_entry(Entry& entry, std::vector<char>& buffer, Lookup lookup) {
  buffer.resize(1024);
  for (;;) {
    Entry* found = nullptr;
    int rc = lookup(&entry, buffer.data(), buffer.size(), &found);
    if (rc == ERANGE && buffer.size() < (1u << 20)) {
      buffer.resize(buffer.size() * 4);
      continue;
    }
    return rc == 0 && found != nullptr;
  }
}

std::optional<std::string> group_name(gid_t gid) {
  struct group entry {};
  std::vector<char> buffer;
  if (!lookup_entry(entry, buffer, [gid](struct group* e, char* b, std::size_t n, struct group** out) {
        return ::getgrgid_r(gid, e, b, n, out);
      }))
    return std::nullopt;
  return std::string(entry.gr_name);
}

// A descriptor of `path` when it is a regular file, else -1. O_NONBLOCK: a FIFO or a device node must never
// block the doctor (it is refused after the open, which does not wait).
int open_regular(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

FileStat to_file_stat(const struct stat& st) {
  FileStat fs;
  if (S_ISREG(st.st_mode))
    fs.type = FileType::file;
  else if (S_ISDIR(st.st_mode))
    fs.type = FileType::dir;
  else if (S_ISLNK(st.st_mode))
    fs.type = FileType::link;
  else if (S_ISCHR(st.st_mode))
    fs.type = FileType::chr;
  else if (S_ISBLK(st.st_mode))
    fs.type = FileType::block;
  else if (S_ISFIFO(st.st_mode))
    fs.type = FileType::fifo;
  else if (S_ISSOCK(st.st_mode))
    fs.type = FileType::socket;
  fs.mode = st.st_mode & 07777;
  fs.uid = st.st_uid;
  fs.gid = st.st_gid;
  if (auto name = group_name(st.st_gid)) fs.group = *name;
  return fs;
}

} // namespace

LiveView::LiveView(std::string root) : m_root(std::move(root)) {
  if (m_root.size() > 1 && m_root.back() == '/') m_root.pop_back();
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    auto pos = entry.find('=');
    if (pos != std::string::npos) m_env[entry.substr(0, pos)] = entry.substr(pos + 1);
  }
  if (m_root == "/" || m_root.empty())
    if (auto folder = run_cache_folder(m_env)) m_run_cache = std::make_unique<RunCache>(*folder);
}

std::string LiveView::real_path(const std::string& path) const {
  if (m_root == "/" || m_root.empty()) return path;
  return m_root + path;
}

std::optional<std::string> LiveView::read_range(const std::string& path, std::uint64_t offset,
                                                std::size_t length) {
  int fd = open_regular(real_path(path));
  if (fd < 0) return std::nullopt;
  std::string content;
  length = std::min<std::size_t>(length, k_max_read_bytes);
  content.resize(length);
  std::size_t got = 0;
  while (got < length) {
    ssize_t n = ::pread(fd, content.data() + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  content.resize(got);
  return content;
}

std::optional<std::uint64_t> LiveView::file_size(const std::string& path) {
  struct stat st {};
  if (::stat(real_path(path).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

std::optional<std::string> LiveView::read_file(const std::string& path) {
  int fd = open_regular(real_path(path));
  if (fd < 0) return std::nullopt;
  std::string content;
  // The size fstat gives, as a first guess only: one allocation for a large file (dpkg's status is a
  // megabyte; growing by doubling held twice that at the peak of `check`'s memory).
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0)
    content.reserve(std::min<std::size_t>(static_cast<std::size_t>(st.st_size) + 1, k_max_read_bytes));
  char buf[65536];
  // sysfs and procfs report sizes that are wrong (4096 or 0), so read until EOF, with a cap.
  while (content.size() < k_max_read_bytes) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      // Some sysfs attributes exist but refuse reads (EIO, EINVAL): treat as unreadable.
      return content.empty() ? std::nullopt : std::optional<std::string>(content);
    }
    if (n == 0) break;
    content.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

std::optional<std::vector<std::string>> LiveView::list_dir(const std::string& path) {
  DIR* dir = ::opendir(real_path(path).c_str());
  if (!dir) return std::nullopt;
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> LiveView::read_link(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(real_path(path).c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<FileStat> LiveView::stat(const std::string& path) {
  struct stat st {};
  if (::stat(real_path(path).c_str(), &st) != 0) return std::nullopt;
  return to_file_stat(st);
}

std::optional<FileStat> LiveView::lstat(const std::string& path) {
  struct stat st {};
  if (::lstat(real_path(path).c_str(), &st) != 0) return std::nullopt;
  return to_file_stat(st);
}

std::optional<unsigned> LiveView::link_count(const std::string& path) {
  struct stat st {};
  if (::lstat(real_path(path).c_str(), &st) != 0) return std::nullopt;
  return static_cast<unsigned>(st.st_nlink);
}

CommandResult LiveView::run(const CommandSpec& spec) {
  auto env = m_env;
  // Vendor tools localise numbers and messages; parsers expect the C locale.
  env["LC_ALL"] = "C";
  std::string cache_key;
  if (spec.cache && m_run_cache) {
    cache_key = run_cache_key(spec, env);
    if (auto remembered = m_run_cache->find(spec, cache_key)) {
      note_untrusted(*remembered);
      return *remembered;
    }
  }
  CommandResult r = run_process(spec, env);
  if (spec.cache && m_run_cache) m_run_cache->keep(spec, cache_key, r);
  note_untrusted(r);
  return r;
}

void LiveView::note_untrusted(const CommandResult& r) {
  if (r.untrusted.empty()) return;
  std::lock_guard lock(m_untrusted_mutex);
  for (const auto& u : r.untrusted)
    if (std::none_of(m_untrusted.begin(), m_untrusted.end(), [&](const auto& seen) {
          return seen.second.path == u.path && seen.second.ran_as == u.ran_as;
        }))
      m_untrusted.emplace_back(r.key, u);
}

std::vector<std::pair<std::string, UntrustedProgram>> LiveView::untrusted_programs() {
  std::lock_guard lock(m_untrusted_mutex);
  return m_untrusted;
}

std::map<std::string, std::string> LiveView::environment() {
  return m_env;
}

std::optional<std::string> LiveView::env(const std::string& name) {
  auto it = m_env.find(name);
  if (it == m_env.end()) return std::nullopt;
  return it->second;
}

Identity LiveView::identity() {
  Identity id;
  id.uid = ::getuid();
  id.gid = ::getgid();
  struct passwd pw {};
  std::vector<char> buffer;
  uid_t uid = id.uid;
  if (lookup_entry(pw, buffer, [uid](struct passwd* e, char* b, std::size_t n, struct passwd** out) {
        return ::getpwuid_r(uid, e, b, n, out);
      })) {
    id.user = pw.pw_name;
    id.home = pw.pw_dir;
  }
  int count = ::getgroups(0, nullptr);
  std::vector<gid_t> gids(count > 0 ? static_cast<std::size_t>(count) : 0);
  if (count > 0) count = ::getgroups(count, gids.data());
  gids.resize(count > 0 ? static_cast<std::size_t>(count) : 0);
  if (std::find(gids.begin(), gids.end(), id.gid) == gids.end()) gids.insert(gids.begin(), id.gid);
  for (gid_t g : gids) {
    id.gids.push_back(g);
    id.groups.push_back(group_name(g).value_or(std::to_string(g)));
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) id.hostname = host;
  return id;
}

} // namespace gpudoctor
