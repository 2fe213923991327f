#include "system/own_folder.hpp"

#include "system/root_trust.hpp"
#include "util/escape.hpp"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

namespace fs = std::filesystem;

std::string shown(const std::string& path) {
  return escape::one_line(path);
}

// Makes the missing folders of `dir` (absolute): `dir` 0700, those above it `parents_mode`, whatever the
// umask.
std::expected<void, std::string> make_missing(const fs::path& dir, unsigned parents_mode) {
  fs::path at = "/";
  for (const auto& part : dir.relative_path()) {
    at /= part;
    struct stat st {};
    if (::lstat(at.c_str(), &st) == 0) continue;
    mode_t mode = at == dir ? 0700 : static_cast<mode_t>(parents_mode);
    if (errno != ENOENT || (::mkdir(at.c_str(), mode) != 0 && errno != EEXIST))
      return std::unexpected(fmt::format("cannot make {}: {}", shown(at.string()), std::strerror(errno)));
    ::chmod(at.c_str(), mode);
  }
  return {};
}

// Why the open folder (its fstat `st`) is not the account's own, if it is not.
std::optional<std::string> distrust_folder(const struct stat& st) {
  uid_t me = ::geteuid();
  if (st.st_uid != me) return fmt::format("owned by {}", user_name_of(st.st_uid));
  if (st.st_mode & S_IWGRP) return std::string("writable by its group");
  if (st.st_mode & S_IWOTH) return std::string("writable by others");
  return std::nullopt;
}

} // namespace

std::expected<OwnFolder, std::string> open_own_folder(const std::string& dir, bool create,
                                                      std::string_view what, unsigned parents_mode) {
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec);
  if (ec) return std::unexpected(fmt::format("cannot use {}: {}", shown(dir), ec.message()));
  absolute = absolute.lexically_normal();
  std::string path = absolute.string();
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  bool root = ::geteuid() == 0;
  if (create) {
    // As root, nothing is made below a folder another user can change: judged before the first mkdir.
    fs::path existing = absolute;
    while (root && existing.has_relative_path() && !fs::exists(existing, ec))
      existing = existing.parent_path();
    if (auto d = root ? distrust_for_root(existing.string()) : std::nullopt)
      return std::unexpected(fmt::format(
          "root keeps its {} only in a folder no other user can change, and {} lies below {}, which is {}. "
          "Look at what is in it; then give it to root ({}), and run this again",
          what, shown(path), shown(d->path), d->why, give_to_root_command(d->path)));
    if (auto made = make_missing(path, parents_mode); !made) return std::unexpected(made.error());
  }
  if (root)
    if (auto d = distrust_for_root(path)) {
      if (d->why == "missing") return std::unexpected(fmt::format("{} does not exist", shown(path)));
      return std::unexpected(fmt::format(
          "root keeps its {} only in a folder no other user can change, and {} {}. Look at what is "
          "in it; then remove it, or give it to root ({}), and run this again",
          what, shown(path),
          d->path == path ? "is " + d->why
                          : fmt::format("lies below {}, which is {}", shown(d->path), d->why),
          give_to_root_command(d->path)));
    }
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::unexpected(fmt::format("{} does not exist", shown(path)));
    if (errno == ELOOP)
      return std::unexpected(
          fmt::format("{} is a link: a {} is never reached through one", shown(path), what));
    if (errno == ENOTDIR) return std::unexpected(fmt::format("{} is not a folder", shown(path)));
    return std::unexpected(fmt::format("cannot open {}: {}", shown(path), std::strerror(errno)));
  }
  struct stat st {};
  std::optional<std::string> why;
  if (::fstat(fd, &st) != 0)
    why = std::strerror(errno);
  else
    why = distrust_folder(st);
  if (why) {
    ::close(fd);
    return std::unexpected(fmt::format("{} is {}: a {} folder must be {} and writable by nobody else",
                                       shown(path), *why, what, root ? "root's" : "your own"));
  }
  return OwnFolder{fd, path};
}

std::expected<std::vector<std::string>, std::string> folder_names(int fd, const std::string& path) {
  int dup = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return std::unexpected(fmt::format("cannot list {}: {}", shown(path), std::strerror(errno)));
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return std::unexpected(fmt::format("cannot list {}: {}", shown(path), std::strerror(errno)));
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    names.emplace_back(e->d_name);
  ::closedir(d);
  return names;
}

} // namespace gpudoctor
