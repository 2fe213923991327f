#include "bundle/obfuscation_key.hpp"

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

std::expected<std::string, std::string> create_key(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return create_key(path);
  if (fd < 0)
    return std::unexpected(fmt::format("cannot open the key file {}: {}", path, std::strerror(errno)));
  struct stat st {};
  std::string key;
  std::string problem;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    problem = "is not a regular file";
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
