// The one walk of a machine path through its symlinks, shared by the recorder (over the live machine) and the
// replay (over a snapshot's fs/), so that a recorded path replays to the place it was read from. A fix to one
// is a fix to both (issue 14: there were two copies).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// What the walk learns about one location: absent, a symlink (with its target as stored), or anything else.
struct PathNode {
  bool exists = false;
  std::optional<std::string> link_target;
};

// Answers for the location named by `parts` (components below the root, never "." or ".."), without
// following a link in the last component (lstat). The recorder also records each link it is asked about.
using PathLookup = std::function<PathNode(const std::vector<std::string>& parts)>;

// Longest path the walk accepts, and most links it follows: the kernel's PATH_MAX and its 40 (ELOOP).
inline constexpr std::size_t k_max_walk_path = 4096;
inline constexpr int k_max_walk_links = 40;

// Resolves the absolute `path` component by component as the kernel would, but inside a root: an absolute
// link target restarts at the root and ".." stops there. `follow_final` decides whether a link in the last
// component is followed. Returns the components of the location reached, or nothing when a component is
// absent, the links loop, or a path (or a link target) is longer than k_max_walk_path.
std::optional<std::vector<std::string>> walk_path(const std::string& path, bool follow_final,
                                                  const PathLookup& look);

} // namespace gpudoctor
