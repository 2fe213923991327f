#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <fmt/format.h>

namespace gpudoctor {

namespace {

std::string why(const std::string& what, const std::string& path) {
  return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

// A name no one can guess ahead of the run: 16 hex digits from the kernel's random pool.
std::string temporary_name() {
  unsigned char bytes[8] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (unsigned char b : bytes)
    hex += fmt::format("{:02x}", b);
  return ".gpudoctor-" + hex + ".tmp";
}

std::string folder_of(const std::string& shown) {
  auto slash = shown.rfind('/');
  return slash == std::string::npos ? std::string(".") : shown.substr(0, slash + 1);
}

// The folder that holds `path`, opened as the kernel resolves it (missing folders created), and the name.
std::expected<std::pair<int, std::string>, std::string> open_parent(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  std::string name = p.filename().string();
  std::string dir = p.parent_path().string();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::create_directories(dir, ec);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC); // searchable, not readable
  if (fd < 0) return std::unexpected(why("cannot open the folder", dir));
  return std::pair{fd, name};
}

struct Closer {
  int fd;
  ~Closer() {
    if (fd >= 0) ::close(fd);
  }
};

} // namespace

FillFile fill_with(std::string_view content) {
  return [content](int fd) -> std::expected<void, std::string> {
    std::size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return std::unexpected(std::string(std::strerror(errno)));
      done += static_cast<std::size_t>(n);
    }
    return {};
  };
}

// Only a regular file (or, for a restore, a link) is replaced: the rename puts a new node in the old one's
// place, so over /dev/null (run as root) it would leave a regular file where every program expects the
// device, and over /dev/stdout (a link) a file in place of the link.
std::expected<void, std::string> refuse_other_nodes(const std::string& path, bool may_replace_link) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || (may_replace_link && S_ISLNK(st.st_mode)))
    return {};
  return std::unexpected(fmt::format("{} exists and is not a regular file: not replaced", path));
}

std::expected<void, std::string> replace_in_folder(int dirfd, const std::string& name,
                                                   const std::string& shown, unsigned mode,
                                                   const FillFile& fill, const ReplaceOptions& options) {
  struct stat st {};
  bool exists = ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (name.empty() || name == "." || name == ".." ||
      (exists && !S_ISREG(st.st_mode) && !(options.may_replace_link && S_ISLNK(st.st_mode))))
    return std::unexpected(fmt::format("{} exists and is not a regular file: not replaced", shown));
  // O_EXCL makes the file or fails, even where a link of that name was planted; O_NOFOLLOW says it twice.
  // Read and write: a filler may read back what it wrote (bundle's digest of its archive).
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = temporary_name();
    fd = ::openat(dirfd, tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  std::string tmp_shown = folder_of(shown) + tmp;
  if (fd < 0) return std::unexpected(why("cannot create a temporary file in", folder_of(shown)));
  if (options.started) options.started(tmp_shown);
  auto give_up = [&](const std::string& err) -> std::expected<void, std::string> {
    ::unlinkat(dirfd, tmp.c_str(), 0);
    if (options.ended) options.ended(tmp_shown);
    return std::unexpected(err);
  };
  auto filled = fill(fd);
  if (!filled) {
    ::close(fd);
    return give_up(fmt::format("cannot write {}: {}", shown, filled.error()));
  }
  // The mode is set on the descriptor, whatever the umask: 0600 until here, so no one opened it meanwhile.
  ::fchmod(fd, mode & 07777);
  if (options.owner && ::fchown(fd, options.owner->st_uid, options.owner->st_gid) != 0) { /* not root */
  }
  if (::fsync(fd) != 0) {
    auto err = why("cannot flush", tmp_shown);
    ::close(fd);
    return give_up(err);
  }
  if (::close(fd) != 0) return give_up(why("cannot flush", tmp_shown));
  if (::renameat(dirfd, tmp.c_str(), dirfd, name.c_str()) != 0) return give_up(why("cannot replace", shown));
  if (options.ended) options.ended(tmp_shown);
  ::fsync(dirfd); // EBADF for a folder opened O_PATH: the rename is done, only its durability is not forced
  return {};
}

std::expected<void, std::string> atomic_replace(const std::string& path, unsigned mode,
                                                const FillFile& fill) {
  if (auto refused = refuse_other_nodes(path, false); !refused) return refused;
  auto parent = open_parent(path);
  if (!parent) return std::unexpected(parent.error());
  Closer folder{parent->first};
  return replace_in_folder(folder.fd, parent->second, path, mode, fill);
}

std::expected<void, std::string> atomic_write(const std::string& path, const std::string& content,
                                              unsigned mode) {
  return atomic_replace(path, mode, fill_with(content));
}

std::expected<void, std::string> atomic_copy(const std::string& from, const std::string& to) {
  if (auto refused = refuse_other_nodes(to, true); !refused) return refused;
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) return std::unexpected(why("cannot read", from));
  auto parent = open_parent(to);
  if (!parent) return std::unexpected(parent.error());
  Closer folder{parent->first};
  const std::string& name = parent->second;
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    ssize_t n = ::readlink(from.c_str(), target, sizeof target - 1);
    if (n < 0) return std::unexpected(why("cannot read the link", from));
    std::string tmp = temporary_name();
    if (::symlinkat(std::string(target, static_cast<std::size_t>(n)).c_str(), folder.fd, tmp.c_str()) != 0)
      return std::unexpected(why("cannot restore the link", to));
    if (::renameat(folder.fd, tmp.c_str(), folder.fd, name.c_str()) != 0) {
      auto err = why("cannot restore the link", to);
      ::unlinkat(folder.fd, tmp.c_str(), 0);
      return std::unexpected(err);
    }
    return {};
  }
  std::ifstream in(from, std::ios::binary);
  if (!in) return std::unexpected(why("cannot read", from));
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string content = ss.str();
  ReplaceOptions keep;
  keep.may_replace_link = true;
  keep.owner = &st;
  return replace_in_folder(folder.fd, name, to, st.st_mode, fill_with(content), keep);
}

} // namespace gpudoctor
