#include "fix/record_files.hpp"

#include "fix/apply_state.hpp"
#include "system/root_exec.hpp"
#include "system/root_trust.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/file_text.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor::fix {

namespace {

// A journal of a long migration is some hundred kilobytes; anything near this is not one of ours.
constexpr std::size_t k_max_record_bytes = 64u << 20;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// Whether `path` lies below `folder`, spelled plainly: no empty, `.` or `..` component after it.
bool plainly_below(const std::string& folder, const std::string& path) {
  if (!path.starts_with(folder + "/")) return false;
  std::string_view rest(path);
  rest.remove_prefix(folder.size() + 1);
  while (!rest.empty()) {
    auto slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return true;
}

std::expected<std::string, std::string> read_fd(int fd, const std::string& shown) {
  auto text = read_descriptor(fd, k_max_record_bytes);
  if (!text) return std::unexpected(fmt::format("cannot read {}: {}", shown, text.error()));
  return text;
}

} // namespace

std::string RecordPlaces::script(const std::string& id) const {
  return scripts + "/" + id + ".sh";
}
std::string RecordPlaces::journal(const std::string& id) const {
  return log + "/" + id + ".journal";
}
std::string RecordPlaces::run_backups(const std::string& id, const std::string& run) const {
  return backups + "/" + id + "/" + run;
}
std::string RecordPlaces::script_cache(const std::string& id) const {
  return cache + "/" + id;
}
std::string RecordPlaces::migration_file() const {
  return state + "/migration.json";
}
std::string RecordPlaces::last_apply_file() const {
  return state + "/last-apply.json";
}
std::string RecordPlaces::migration_file_0_1() const {
  return state + "/migrate.json";
}

RecordPlaces root_places(const std::string& root) {
  std::string r = root == "/" ? std::string() : root;
  while (!r.empty() && r.back() == '/')
    r.pop_back();
  return {r,
          true,
          "/var/lib/gpudoctor",
          "/var/lib/gpudoctor/scripts",
          "/var/log/gpudoctor",
          "/var/backups/gpudoctor",
          "/var/cache/gpudoctor"};
}

RecordPlaces user_places() {
  // The same folders as fixes/lib.bash's gd_init_dirs for a user.
  std::string home = env_or("HOME", "/");
  std::string state = env_or("XDG_STATE_HOME", home + "/.local/state") + "/gpudoctor";
  return {"",
          false,
          state,
          state + "/scripts",
          state + "/log",
          state + "/backups",
          env_or("XDG_CACHE_HOME", home + "/.cache") + "/gpudoctor"};
}

RecordPlaces places_for(const std::string& root) {
  return !root.empty() || running_as_root() ? root_places(root) : user_places();
}

std::expected<void, Failure> prepare_record_folders(const RecordPlaces& places) {
  for (const std::string* folder :
       {&places.state, &places.scripts, &places.log, &places.backups, &places.cache}) {
    std::string host = places.on_host(*folder);
    struct stat st {};
    if (::lstat(host.c_str(), &st) != 0) {
      if (errno != ENOENT) return fail(Exit::usage, "cannot look at {}: {}", host, std::strerror(errno));
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(host).parent_path(), ec);
      // The cache is 0755: pip reads the downloaded wheels as the owner of the environment, apt the cached
      // .debs as its sandbox user. It holds what public repositories serve; the rest holds secrets.
      mode_t mode = folder == &places.cache ? 0755 : 0700;
      if (::mkdir(host.c_str(), mode) != 0 && errno != EEXIST)
        return fail(Exit::usage, "cannot make {}: {}", host, std::strerror(errno));
      ::chmod(host.c_str(), mode); // whatever the umask
    }
    if (!places.system) continue;
    if (auto d = distrust_for_root(*folder, places.root))
      return fail_with(
          Exit::usage,
          fmt::format("root keeps its records only in folders no other user can change, and {} {}. "
                      "Look at what is in it; then remove it, or give it to root, and run this again:",
                      *folder,
                      d->path == *folder ? "is " + d->why
                                         : fmt::format("lies below {}, which is {}", d->path, d->why)),
          {give_to_root_command(places.on_host(d->path))});
  }
  return {};
}

std::expected<std::optional<std::string>, std::string> read_record(const RecordPlaces& places,
                                                                   const std::string& path) {
  std::string host = places.on_host(path);
  std::string shown = escape::one_line(path);
  if (places.system && running_as_root()) {
    if (auto d = distrust_for_root(path, places.root)) {
      if (d->why == "missing") return std::nullopt;
      return std::unexpected(fmt::format("{} is not root's own record: {}", shown, d->describe(path)));
    }
  }
  int fd = ::open(host.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    if (errno == ELOOP)
      return std::unexpected(fmt::format("{} is a link: a record is never read through one", shown));
    return std::unexpected(fmt::format("cannot open {}: {}", shown, std::strerror(errno)));
  }
  // As root, judged again once open: it may have been replaced since its path was judged.
  bool judge_owner = places.system && running_as_root();
  if (auto why = distrust_open_record(fd, judge_owner ? std::optional<unsigned>(0) : std::nullopt)) {
    ::close(fd);
    return std::unexpected(fmt::format("{} is not root's own record: {}", shown, *why));
  }
  auto text = read_fd(fd, shown);
  ::close(fd);
  if (!text) return std::unexpected(text.error());
  return std::optional<std::string>(std::move(*text));
}

std::expected<std::optional<ApplyRecord>, std::string> load_record(const RecordPlaces& places,
                                                                   const std::string& path) {
  auto text = read_record(places, path);
  if (!text) return std::unexpected(text.error());
  if (!*text) return std::nullopt;
  auto doc = parse_json(**text);
  if (!doc) return std::unexpected(fmt::format("{} is not JSON: {}", escape::one_line(path), doc.error()));
  auto rec = record_from_json(*doc);
  if (!rec)
    return std::unexpected(
        fmt::format("{} is no record of an apply: {}", escape::one_line(path), rec.error()));
  return std::optional<ApplyRecord>(std::move(*rec));
}

std::expected<void, std::string> save_record(const RecordPlaces& places, const std::string& path,
                                             const Json& doc) {
  auto w = atomic_write(places.on_host(path), dump_json(doc) + "\n", 0600);
  if (!w) return std::unexpected(fmt::format("cannot save the state: {}", w.error()));
  return {};
}

std::expected<void, std::string> check_kept_file(const RecordPlaces& places, const std::string& folder,
                                                 const std::string& file) {
  if (!plainly_below(folder, file)) return std::unexpected(fmt::format("it is not below {}", folder));
  bool judged = places.system && running_as_root();
  if (judged)
    if (auto d = distrust_for_root(folder, places.root))
      return std::unexpected(fmt::format("{} is not root's: {}", folder, d->describe(folder)));
  // Below the folder: no link, and folders no other user can change; the file itself a regular one.
  bool sealed = false; // some folder on the way lets no other user in
  std::string here;
  for (std::size_t at = 0; at != std::string::npos;) {
    std::size_t next = file.find('/', at + 1);
    here = file.substr(0, next);
    at = next;
    if (here.empty()) continue;
    struct stat st {};
    if (::lstat(places.on_host(here).c_str(), &st) != 0)
      return std::unexpected(fmt::format("{}: {}", here, std::strerror(errno)));
    if (here.size() <= folder.size()) { // the folder and those above it: judged by the trust rule
      if (!S_ISLNK(st.st_mode) && (st.st_mode & 011) == 0) sealed = true;
      continue;
    }
    if (S_ISLNK(st.st_mode)) return std::unexpected(fmt::format("{} is a link", here));
    if (next == std::string::npos) {
      if (!S_ISREG(st.st_mode)) return std::unexpected(fmt::format("{} is not a regular file", here));
      if (judged && st.st_uid != 0 && !sealed)
        return std::unexpected(
            fmt::format("{} is owned by {} and its folders let others in", here, user_name_of(st.st_uid)));
      break;
    }
    if (!S_ISDIR(st.st_mode)) return std::unexpected(fmt::format("{} is not a folder", here));
    if (judged && (st.st_uid != 0 || (st.st_mode & 022)))
      return std::unexpected(fmt::format("{} is {}", here,
                                         st.st_uid != 0 ? "owned by " + user_name_of(st.st_uid)
                                                        : std::string("writable by its group or others")));
    if ((st.st_mode & 011) == 0) sealed = true;
  }
  return {};
}

RecordLock& RecordLock::operator=(RecordLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

RecordLock::~RecordLock() {
  if (fd_ >= 0) ::close(fd_);
}

std::expected<RecordLock, std::string> lock_records(const RecordPlaces& places) {
  std::string path = places.on_host(places.state + "/lock");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    return std::unexpected(fmt::format("cannot open {}: {}", escape::one_line(path), std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return std::unexpected(
          fmt::format("another gpudoctor is applying or undoing on this machine now ({} is "
                      "locked). Wait for it to end, then run this again.",
                      escape::one_line(places.state + "/lock")));
    return std::unexpected(fmt::format("cannot lock {}: {}", escape::one_line(path), std::strerror(err)));
  }
  return RecordLock(fd);
}

} // namespace gpudoctor::fix
