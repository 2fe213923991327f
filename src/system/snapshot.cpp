#include "system/snapshot.hpp"

#include "system/path_walk.hpp"
#include "util/text.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>

namespace gpudoctor::snapshot {

namespace fs = std::filesystem;

std::string command_file_stem(std::size_t index, const std::string& key) {
  std::string stem = std::to_string(index) + "-";
  for (char c : key)
    stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return stem.substr(0, 100);
}

std::optional<fs::path> resolve_inside(const fs::path& fs_root, const std::string& path, bool follow_final,
                                       LookupCache* cache) {
  auto join = [&](const std::vector<std::string>& parts) {
    fs::path p = fs_root;
    for (const auto& part : parts)
      p /= part;
    return p;
  };
  // Never through the OS's resolution: each link is read and followed by the walk, inside fs_root.
  auto lstat_look = [&](const std::vector<std::string>& parts) {
    fs::path at = join(parts);
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) return PathNode{};
    if (!S_ISLNK(st.st_mode)) return PathNode{true, std::nullopt};
    char buf[PATH_MAX];
    ssize_t n = ::readlink(at.c_str(), buf, sizeof buf);
    if (n < 0 || static_cast<std::size_t>(n) >= sizeof buf) return PathNode{};
    return PathNode{true, std::string(buf, static_cast<std::size_t>(n))};
  };
  auto look = [&](const std::vector<std::string>& parts) {
    if (!cache) return lstat_look(parts);
    std::string key;
    for (const auto& part : parts)
      key += "/" + part;
    {
      std::lock_guard lock(cache->mutex);
      if (auto it = cache->nodes.find(key); it != cache->nodes.end()) return it->second;
    }
    PathNode node = lstat_look(parts);
    std::lock_guard lock(cache->mutex);
    cache->nodes.emplace(std::move(key), node);
    return node;
  };
  auto parts = walk_path(path, follow_final, look);
  if (!parts) return std::nullopt;
  return join(*parts);
}

} // namespace gpudoctor::snapshot
