// Replacing a file so that a reader (or a crash) sees the old content or the new one, never a mix: write a
// temporary file in the same folder, fsync it, rename it over the target, fsync the folder.
#pragma once

#include <expected>
#include <string>

namespace gpudoctor {

// Writes `content` to `path` atomically with permission bits `mode`; creates missing parent folders.
std::expected<void, std::string> atomic_write(const std::string& path, const std::string& content,
                                              unsigned mode);

// Copies `from` over `to` atomically, keeping `from`'s permission bits and (when allowed) its owner.
std::expected<void, std::string> atomic_copy(const std::string& from, const std::string& to);

} // namespace gpudoctor
