// Rewriting a snapshot folder in place: file contents, link targets and names, deepest first, so that a
// folder is renamed after everything below it. Redaction (secret shapes in names) and --obfuscate (names of
// users and hosts in paths) share it.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct TreeRewrite {
  // The new content of the file at `rel` (relative to the folder, '/'-separated), or nothing to leave it.
  // Only text files are offered: no NUL byte, at most 64 MiB (the most a recording reads of a file).
  std::function<std::optional<std::string>(const std::string& rel, std::string_view content)> content;
  // The new text of a name or of a link target.
  std::function<std::string(const std::string&)> name;
};

struct TreeRewritten {
  std::vector<std::string>
      changed; // relative paths (as they were) whose content, link or name changed, sorted
  std::vector<std::string> failed; // what could not be rewritten and why (a full disk): the folder still
                                   // holds what was to be removed, so it must not be shipped
};

// Applies `rewrite` below `dir`, leaving the relative paths in `skip`.
TreeRewritten rewrite_tree(const std::filesystem::path& dir, const TreeRewrite& rewrite,
                           const std::vector<std::string>& skip);

} // namespace gpudoctor
