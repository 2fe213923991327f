// Snapshot format 1 (shared/spec/snapshot-v1.md): the layout shared by bundles, fixtures and replay.
#pragma once

#include "system/system_view.hpp"
#include "util/json.hpp"

#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::snapshot {

inline constexpr const char* k_format = "gpudoctor-snapshot";
inline constexpr int k_version = 1;
// A file git can keep in an otherwise empty folder of a snapshot checked into a repository (a listed folder
// is often empty: site-packages/*.dist-info). Replay leaves it out of every listing (docs/snapshot.md).
inline constexpr const char* k_keep_file = ".gpudoctor-keep";

struct Manifest {
  std::string created; // ISO 8601 UTC
  std::string tool;
  std::string origin = "live"; // live | fixture
  std::vector<std::string> redacted;
  std::string note;
};

Json manifest_to_json(const Manifest& m);
// Checks format and version; the error says what is wrong in words a user can act on.
std::expected<Manifest, std::string> manifest_from_json(const Json& j);

Json stat_to_json(const FileStat& st);
std::expected<FileStat, std::string> stat_from_json(const Json& j);

Json identity_to_json(const Identity& id);
Identity identity_from_json(const Json& j);

// One entry of commands.json; output file names are relative to the snapshot root.
Json command_to_json(const CommandResult& r, const std::string& out_file, const std::string& err_file);

// A file name under cmd/ for a command key (keys may hold '@' and '/').
std::string command_file_stem(std::size_t index, const std::string& key);

// Resolves `path` (absolute, as on the machine) to a location inside `fs_root`, following symlinks as the
// machine would but never leaving `fs_root`: absolute link targets are re-rooted and ".." stops at the root.
// `follow_final` decides whether a link in the last component is followed. Empty when the path is absent.
std::optional<std::filesystem::path> resolve_inside(const std::filesystem::path& fs_root,
                                                    const std::string& path, bool follow_final);

// Current time as "2026-11-29T19:43:30Z".
std::string utc_now();

} // namespace gpudoctor::snapshot
