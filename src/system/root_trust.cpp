#include "system/root_trust.hpp"

#include "system/path_walk.hpp"
#include "util/shell_word.hpp"
#include "util/text.hpp"

#include <cerrno>
#include <cstring>
#include <pwd.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <climits>
#include <fmt/format.h>

namespace gpudoctor {

namespace {

bool others_may_write(const struct stat& st) {
  return (st.st_mode & (S_IWOTH | S_IWGRP)) != 0;
}

std::optional<std::string> judge(const struct stat& st, bool sticky_ok) {
  return distrust_place(st.st_uid, st.st_mode, sticky_ok);
}

std::optional<Distrust> judge_path(const std::string& path, const std::string& root, bool sticky_ok);

} // namespace

std::optional<std::string> distrust_place(unsigned uid, unsigned mode, bool sticky_ok) {
  if (uid != 0) return fmt::format("owned by {}", user_name_of(uid));
  if (sticky_ok && S_ISDIR(mode) && (mode & S_ISVTX)) return std::nullopt;
  if (mode & S_IWOTH) return std::string("writable by others");
  if (mode & S_IWGRP) return std::string("writable by its group");
  return std::nullopt;
}

std::string Distrust::describe(const std::string& asked) const {
  if (path == asked) return why;
  return fmt::format("{} is {}", path, why);
}

std::string user_name_of(unsigned uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found && pw.pw_name && *pw.pw_name)
    return pw.pw_name;
  return std::to_string(uid);
}

std::optional<std::string> home_of(unsigned uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found && pw.pw_dir && *pw.pw_dir)
    return std::string(pw.pw_dir);
  return std::nullopt;
}

std::optional<Distrust> distrust_for_root(const std::string& path, const std::string& root) {
  return judge_path(path, root, false);
}

std::optional<Distrust> distrust_for_root_writes(const std::string& folder, const std::string& root) {
  return judge_path(folder, root, true);
}

namespace {

std::optional<Distrust> judge_path(const std::string& path, const std::string& root, bool sticky_ok) {
  std::string top = root == "/" ? std::string() : root;
  if (!top.empty() && top.back() == '/') top.pop_back();
  if (path.empty() || path[0] != '/') return Distrust{path, 0, "not an absolute path"};
  auto on_machine = [](const std::vector<std::string>& parts) { return "/" + text::join(parts, "/"); };
  struct stat st {};
  if (::lstat((top.empty() ? "/" : top).c_str(), &st) != 0) return Distrust{"/", 0, "missing"};
  if (auto why = judge(st, sticky_ok)) return Distrust{"/", static_cast<unsigned>(st.st_uid), *why};
  std::optional<Distrust> found;
  auto look = [&](const std::vector<std::string>& parts) -> PathNode {
    PathNode node;
    if (found) return node; // stop the walk at the first place that fails
    std::string here = on_machine(parts);
    if (::lstat((top + here).c_str(), &st) != 0) {
      found = Distrust{here, 0, errno == ENOENT ? "missing" : "unreadable"};
      return node;
    }
    node.exists = true;
    if (S_ISLNK(st.st_mode)) {
      // The folder the link stands in was judged already: only who may write it can change the link; in a
      // sticky folder others may write, that is the link's owner.
      struct stat folder {};
      std::vector<std::string> above(parts.begin(), parts.end() - 1);
      if (st.st_uid != 0 && ::lstat((top + on_machine(above)).c_str(), &folder) == 0 &&
          others_may_write(folder)) {
        found = Distrust{here, static_cast<unsigned>(st.st_uid),
                         fmt::format("owned by {}", user_name_of(st.st_uid))};
        node.exists = false;
        return node;
      }
      char target[PATH_MAX];
      ssize_t n = ::readlink((top + here).c_str(), target, sizeof target - 1);
      if (n < 0) {
        found = Distrust{here, 0, "unreadable"};
        node.exists = false;
        return node;
      }
      node.link_target = std::string(target, static_cast<std::size_t>(n));
      return node;
    }
    if (auto why = judge(st, sticky_ok)) {
      found = Distrust{here, static_cast<unsigned>(st.st_uid), *why};
      node.exists = false;
    }
    return node;
  };
  auto reached = walk_path(path, true, look);
  if (found) return found;
  if (!reached) return Distrust{path, 0, "a link loop or a path too long"};
  return std::nullopt;
}

} // namespace

std::expected<unsigned, std::string> sole_owner(const std::string& path, const std::string& root) {
  std::string top = root == "/" ? std::string() : root;
  if (!top.empty() && top.back() == '/') top.pop_back();
  if (path.empty() || path[0] != '/') return std::unexpected("not an absolute path");
  std::set<unsigned> owners;
  std::optional<std::string> refused;
  // Why this place (not a link) leaves no one account in charge, if it does not.
  auto judge_place = [&](const std::string& here, const struct stat& st) -> std::optional<std::string> {
    bool sticky_folder = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
    if ((st.st_mode & S_IWOTH) && !sticky_folder) return fmt::format("{} is writable by others", here);
    if ((st.st_mode & S_IWGRP) && st.st_uid == 0 && !sticky_folder)
      return fmt::format("{} is root's and writable by its group", here);
    if (st.st_uid != 0) owners.insert(st.st_uid);
    return std::nullopt;
  };
  struct stat st {};
  if (::lstat((top.empty() ? "/" : top).c_str(), &st) != 0) return std::unexpected("/ is missing");
  if (auto why = judge_place("/", st)) return std::unexpected(*why);
  auto look = [&](const std::vector<std::string>& parts) -> PathNode {
    PathNode node;
    if (refused) return node;
    std::string here = "/" + text::join(parts, "/");
    if (::lstat((top + here).c_str(), &st) != 0) {
      refused = fmt::format("{} is {}", here, errno == ENOENT ? "missing" : "unreadable");
      return node;
    }
    node.exists = true;
    if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = ::readlink((top + here).c_str(), target, sizeof target - 1);
      if (n < 0) {
        refused = fmt::format("{} is unreadable", here);
        node.exists = false;
        return node;
      }
      node.link_target = std::string(target, static_cast<std::size_t>(n));
      return node;
    }
    if (auto why = judge_place(here, st)) {
      refused = *why;
      node.exists = false;
    }
    return node;
  };
  auto reached = walk_path(path, true, look);
  if (refused) return std::unexpected(*refused);
  if (!reached) return std::unexpected("a link loop or a path too long");
  if (owners.empty()) return std::unexpected("root's, yet root cannot trust it");
  if (owners.size() > 1) {
    std::vector<std::string> names;
    for (unsigned uid : owners)
      names.push_back(user_name_of(uid));
    return std::unexpected(fmt::format("reached through places of {}", text::join(names, " and ")));
  }
  return *owners.begin();
}

std::optional<std::string> distrust_open_record(int fd, std::optional<unsigned> owner) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::string(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return std::string("not a regular file");
  if (!owner) return std::nullopt;
  if (st.st_uid != *owner) return fmt::format("owned by {}", user_name_of(st.st_uid));
  if (others_may_write(st)) return std::string("writable by its group or others");
  return std::nullopt;
}

std::string give_to_root_command(const std::string& folder) {
  return fmt::format("chown root:root {0} && chmod 0700 {0}", shell_quote(folder));
}

} // namespace gpudoctor
