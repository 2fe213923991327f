#include "bundle/obfuscation_key.hpp"

#include "system/output_file.hpp"
#include "system/root_trust.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

constexpr std::size_t k_key_bytes = 32, k_min_key_bytes = 16, k_max_key_bytes = 4096;

std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break; // getrandom without GRND_NONBLOCK does not fail once the pool is ready
    got += static_cast<std::size_t>(r);
  }
  return out;
}

std::expected<std::string, std::string> create_key(const OutputFolder& folder, const std::string& path) {
  int fd = ::openat(folder.fd(), folder.name().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
  if (fd < 0)
    return std::unexpected(fmt::format("cannot create the key file {}: {}", path, std::strerror(errno)));
  std::string key = random_bytes(k_key_bytes);
  bool ok = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size()) && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok)
    return std::unexpected(fmt::format("cannot write the key file {}: {}", path, std::strerror(errno)));
  return key;
}

} // namespace

std::expected<std::string, std::string> load_or_create_obfuscation_key(const std::string& path) {
  bool as_root = ::geteuid() == 0;
  if (path.empty()) return std::unexpected(std::string("the key file's path is empty"));
  // Judged before anything is opened or made: root makes no folder or file where another user could swap it.
  if (as_root) {
    std::string dir = path.substr(0, path.rfind('/') + 1);
    char cwd[4096];
    if (path[0] != '/' && ::getcwd(cwd, sizeof cwd)) dir = std::string(cwd) + "/" + dir;
    if (auto d = distrust_for_root_writes(dir))
      return std::unexpected(fmt::format("the key file {} is in a folder another user can change ({}): they "
                                         "could put their own key there; as root, keep it in root's folders",
                                         path, d->describe(dir)));
  }
  auto folder = OutputFolder::open_for(path, as_root);
  if (!folder) return std::unexpected(fmt::format("the key file: {}", folder.error()));
  int fd = ::openat(folder->fd(), folder->name().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return create_key(*folder, path);
  if (fd < 0)
    return std::unexpected(fmt::format("cannot open the key file {}: {}", path, std::strerror(errno)));
  struct stat st {};
  std::string key;
  std::string problem;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    problem = "is not a regular file";
  else if (st.st_uid != ::geteuid())
    problem = fmt::format("is owned by {}, who knows the key and could reverse the pseudonyms: use a key "
                          "file of your own",
                          user_name_of(st.st_uid));
  else if ((st.st_mode & 077) != 0)
    problem = fmt::format("may be read or written by others (mode {:04o}): chmod 600 it", st.st_mode & 07777);
  else if (st.st_size < static_cast<off_t>(k_min_key_bytes) ||
           st.st_size > static_cast<off_t>(k_max_key_bytes))
    problem = fmt::format("holds {} bytes, not {} to {}", st.st_size, k_min_key_bytes, k_max_key_bytes);
  else {
    key.resize(static_cast<std::size_t>(st.st_size));
    if (::read(fd, key.data(), key.size()) != static_cast<ssize_t>(key.size()))
      problem = "cannot be read whole";
  }
  ::close(fd);
  if (!problem.empty()) return std::unexpected(fmt::format("the key file {} {}", path, problem));
  return key;
}

std::string random_obfuscation_key() {
  return random_bytes(k_key_bytes);
}

} // namespace gpudoctor
