#include "util/temp_dir.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

std::expected<fs::path, std::string> temp_root() {
  const char* env = std::getenv("TMPDIR");
  if (!env || !*env) return fs::path("/tmp");
  std::string dir = env;
  auto bad = [&](const std::string& why) {
    return std::unexpected(fmt::format(
        "TMPDIR={:?} {}: set it to an absolute path of a writable folder, or unset it", dir, why));
  };
  if (dir[0] != '/') return bad("is not an absolute path");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return bad(fmt::format("cannot be used ({})", std::strerror(errno)));
  if (!S_ISDIR(st.st_mode)) return bad("is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return bad("is not writable");
  return fs::path(dir);
}

} // namespace gpudoctor
