#include "system/output_file.hpp"

#include "system/path_walk.hpp"
#include "system/root_trust.hpp"
#include "system/temp_files.hpp"
#include "util/text.hpp"

#include <cerrno>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <climits>
#include <fmt/format.h>

namespace gpudoctor {

namespace {

// One folder of the walk: its descriptor, its path on the machine (links resolved), its owner and mode, and
// the first place at or above it that another user can change (nothing: root alone can change all of it).
struct Level {
  int fd = -1;
  std::string shown;
  struct stat st {};
  std::optional<std::string> changeable;
};

std::string path_below(const std::string& folder, const std::string& name) {
  return folder == "/" ? "/" + name : folder + "/" + name;
}

// The descriptors of the levels reached, closed when the walk ends (all but the one handed out).
struct Levels {
  std::vector<Level> stack;
  ~Levels() {
    for (auto& l : stack)
      if (l.fd >= 0) ::close(l.fd);
  }
  void pop() {
    ::close(stack.back().fd);
    stack.pop_back();
  }
  void restart() { // an absolute link target: back to `/`
    while (stack.size() > 1)
      pop();
  }
  // Takes an opened folder below the top one (or `/` itself, when the stack is empty).
  std::expected<void, std::string> push(int fd, const std::string& shown) {
    Level l{fd, shown, {}, std::nullopt};
    if (::fstat(fd, &l.st) != 0) {
      ::close(fd);
      return std::unexpected(fmt::format("cannot read {}: {}", shown, std::strerror(errno)));
    }
    if (!stack.empty() && stack.back().changeable)
      l.changeable = stack.back().changeable;
    else if (auto why = distrust_place(l.st.st_uid, l.st.st_mode, true))
      l.changeable = fmt::format("{} is {}", shown, *why);
    stack.push_back(std::move(l));
    return {};
  }
};

// Why root must not follow the link `link` (its lstat `st`) standing in the folder `in`, if it must not.
std::optional<std::string> distrust_link(const Level& in, const struct stat& st) {
  if (in.changeable) return *in.changeable;
  if ((in.st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_uid != 0) // a sticky folder: the link's owner may
    return fmt::format("the link is owned by {}", user_name_of(st.st_uid)); // replace it
  return std::nullopt;
}

// The errors say what is wrong on the way; the caller names the output.
std::expected<int, std::string> open_folder(const std::string& folder, bool as_root) {
  if (folder.size() > k_max_walk_path) return std::unexpected(std::string("the path is too long"));
  Levels levels;
  int root_fd = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return std::unexpected(fmt::format("cannot open /: {}", std::strerror(errno)));
  if (auto pushed = levels.push(root_fd, "/"); !pushed) return std::unexpected(pushed.error());
  std::deque<std::string> pending;
  for (auto& part : text::split(folder, '/'))
    pending.push_back(std::move(part));
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (levels.stack.size() > 1) levels.pop();
      continue;
    }
    Level& top = levels.stack.back();
    std::string here = path_below(top.shown, part);
    struct stat st {};
    if (::fstatat(top.fd, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT || (::mkdirat(top.fd, part.c_str(), 0777) != 0 && errno != EEXIST) ||
          ::fstatat(top.fd, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return std::unexpected(fmt::format("cannot create the folder {}: {}", here, std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) {
      if (as_root)
        if (auto why = distrust_link(top, st))
          return std::unexpected(fmt::format("{} is a link that another user can change ({}); as root, "
                                             "gpudoctor writes through no such link",
                                             here, *why));
      char target[PATH_MAX];
      ssize_t n = ::readlinkat(top.fd, part.c_str(), target, sizeof target - 1);
      if (n < 0)
        return std::unexpected(fmt::format("cannot read the link {}: {}", here, std::strerror(errno)));
      if (++links > k_max_walk_links) return std::unexpected(std::string("too many links"));
      std::string to(target, static_cast<std::size_t>(n));
      if (!to.empty() && to[0] == '/') levels.restart();
      auto parts = text::split(to, '/');
      pending.insert(pending.begin(), parts.begin(), parts.end());
      continue;
    }
    if (!S_ISDIR(st.st_mode)) return std::unexpected(fmt::format("{} is not a folder", here));
    int fd = ::openat(top.fd, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      return std::unexpected(fmt::format("cannot open the folder {}: {}", here, std::strerror(errno)));
    if (auto pushed = levels.push(fd, here); !pushed) return std::unexpected(pushed.error());
  }
  // The folder reached, readable if it can be (only a readable descriptor can be fsynced).
  Level& last = levels.stack.back();
  int fd = ::openat(last.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) return fd;
  fd = last.fd;
  last.fd = -1;
  levels.stack.pop_back();
  return fd;
}

} // namespace

std::expected<OutputFolder, std::string> OutputFolder::open_for(const std::string& path, bool as_root) {
  std::string absolute = path;
  if (absolute.empty()) return std::unexpected(std::string("the output path is empty"));
  if (absolute[0] != '/') {
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd))
      return std::unexpected(
          fmt::format("cannot write {}: the current folder is gone ({})", path, std::strerror(errno)));
    absolute = path_below(cwd, path);
  }
  auto slash = absolute.rfind('/');
  std::string folder = absolute.substr(0, slash + 1), name = absolute.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return std::unexpected(fmt::format("{} exists and is not a regular file: not replaced", path));
  auto fd = open_folder(folder, as_root);
  if (!fd) return std::unexpected(fmt::format("cannot write {}: {}", path, fd.error()));
  return OutputFolder(*fd, name, path);
}

OutputFolder::OutputFolder(OutputFolder&& other) noexcept
    : m_fd(other.m_fd), m_name(std::move(other.m_name)), m_path(std::move(other.m_path)) {
  other.m_fd = -1;
}

OutputFolder& OutputFolder::operator=(OutputFolder&& other) noexcept {
  std::swap(m_fd, other.m_fd);
  std::swap(m_name, other.m_name);
  std::swap(m_path, other.m_path);
  return *this;
}

OutputFolder::~OutputFolder() {
  if (m_fd >= 0) ::close(m_fd);
}

std::expected<void, std::string> OutputFolder::replace(unsigned mode, const FillFile& fill) const {
  ReplaceOptions options;
  options.started = [](const std::string& tmp) { temp::track(tmp); };
  options.ended = [](const std::string& tmp) { temp::untrack(tmp); };
  return replace_in_folder(m_fd, m_name, m_path, mode, fill, options);
}

std::expected<void, std::string> write_output(const std::string& path, std::string_view content,
                                              unsigned mode) {
  auto folder = OutputFolder::open_for(path, ::geteuid() == 0);
  if (!folder) return std::unexpected(folder.error());
  return folder->replace(mode, fill_with(content));
}

} // namespace gpudoctor
