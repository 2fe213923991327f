#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

std::string why(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

void sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::expected<void, std::string> write_and_rename(const std::string& path, const std::string& content,
                                                  unsigned mode, const struct stat* owner) {
  namespace fs = std::filesystem;
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmpl = dir + "/.gpudoctor-XXXXXX.tmp";
  int fd = ::mkstemps(tmpl.data(), 4);
  if (fd < 0) return std::unexpected(why("cannot create a temporary file in", dir));
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto err = why("cannot write", tmpl);
      ::close(fd);
      ::unlink(tmpl.c_str());
      return std::unexpected(err);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, mode & 07777);
  if (owner && ::fchown(fd, owner->st_uid, owner->st_gid) != 0) { /* not root: keep ours */
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    auto err = why("cannot flush", tmpl);
    ::unlink(tmpl.c_str());
    return std::unexpected(err);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    auto err = why("cannot replace", path);
    ::unlink(tmpl.c_str());
    return std::unexpected(err);
  }
  sync_dir(dir);
  return {};
}

} // namespace

// Only a regular file (or, for a restore, a link) is replaced: the rename puts a new node in the old one's
// place, so over /dev/null (run as root) it would leave a regular file where every program expects the
// device, and over /dev/stdout (a link) a file in place of the link.
std::expected<void, std::string> refuse_other_nodes(const std::string& path, bool may_replace_link) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || (may_replace_link && S_ISLNK(st.st_mode)))
    return {};
  return std::unexpected(fmt::format("{} exists and is not a regular file: not replaced", path));
}

std::expected<void, std::string> atomic_write(const std::string& path, const std::string& content,
                                              unsigned mode) {
  if (auto refused = refuse_other_nodes(path, false); !refused) return refused;
  return write_and_rename(path, content, mode, nullptr);
}

std::expected<void, std::string> atomic_copy(const std::string& from, const std::string& to) {
  if (auto refused = refuse_other_nodes(to, true); !refused) return refused;
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) return std::unexpected(why("cannot read", from));
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(from, ec);
    if (ec) return std::unexpected("cannot read the link " + from + ": " + ec.message());
    std::string tmp = to + ".gpudoctor-link.tmp";
    ::unlink(tmp.c_str());
    if (::symlink(target.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), to.c_str()) != 0)
      return std::unexpected(why("cannot restore the link", to));
    return {};
  }
  std::ifstream in(from, std::ios::binary);
  if (!in) return std::unexpected(why("cannot read", from));
  std::ostringstream ss;
  ss << in.rdbuf();
  return write_and_rename(to, ss.str(), st.st_mode, &st);
}

} // namespace gpudoctor
