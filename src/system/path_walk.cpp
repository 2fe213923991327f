#include "system/path_walk.hpp"

#include "util/text.hpp"

#include <deque>

namespace gpudoctor {

std::optional<std::vector<std::string>> walk_path(const std::string& path, bool follow_final,
                                                  const PathLookup& look) {
  if (path.size() > k_max_walk_path) return std::nullopt; // ENAMETOOLONG
  std::deque<std::string> pending;
  for (auto& part : text::split(path, '/'))
    pending.push_back(std::move(part));
  std::vector<std::string> resolved;
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(std::move(part));
    PathNode node = look(resolved);
    if (!node.exists) return std::nullopt;
    if (!node.link_target || (pending.empty() && !follow_final)) continue;
    const std::string& target = *node.link_target;
    if (++links > k_max_walk_links || target.size() > k_max_walk_path) return std::nullopt; // ELOOP
    resolved.pop_back();
    if (!target.empty() && target[0] == '/') resolved.clear();
    auto target_parts = text::split(target, '/');
    pending.insert(pending.begin(), target_parts.begin(), target_parts.end());
  }
  return resolved;
}

} // namespace gpudoctor
