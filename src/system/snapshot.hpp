// Snapshot format 1 (shared/spec/snapshot-v1.md): the layout shared by bundles, fixtures and replay. Its JSON
// files are written and read in system/snapshot_json.hpp.
#pragma once

#include "system/path_walk.hpp"
#include "system/snapshot_json.hpp"

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace gpudoctor::snapshot {

// A file name under cmd/ for a command key (keys may hold '@' and '/').
std::string command_file_stem(std::size_t index, const std::string& key);

// What resolve_inside learnt of each location below one root (lstat and readlink answers), shared by the
// threads reading one snapshot: a replay reads thousands of files in the same few folders, and each
// uncached read costs a system call per component.
struct LookupCache {
  std::mutex mutex;
  std::unordered_map<std::string, PathNode> nodes;
};

// Resolves `path` (absolute, as on the machine) to a location inside `fs_root`, following symlinks as the
// machine would but never leaving `fs_root`: absolute link targets are re-rooted and ".." stops at the root
// (system/path_walk.hpp). `fs_root` itself is trusted: the caller checks it is no symlink.
// `follow_final` decides whether a link in the last component is followed. Empty when the path is absent.
std::optional<std::filesystem::path> resolve_inside(const std::filesystem::path& fs_root,
                                                    const std::string& path, bool follow_final,
                                                    LookupCache* cache = nullptr);

} // namespace gpudoctor::snapshot
