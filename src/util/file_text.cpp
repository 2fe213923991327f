#include "util/file_text.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return content.str();
}

std::expected<std::string, std::string> read_descriptor(int fd, std::size_t max_bytes) {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::unexpected(std::string(std::strerror(errno)));
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) return std::unexpected(fmt::format("larger than {} MiB", max_bytes >> 20));
  }
}

std::expected<void, std::string> write_whole_file(const std::filesystem::path& path,
                                                  std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::unexpected(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return std::unexpected(fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0)
    return std::unexpected(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  return {};
}

} // namespace gpudoctor
