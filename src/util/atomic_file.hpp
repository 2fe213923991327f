// Replacing a file so that a reader (or a crash) sees the old content or the new one, never a mix: write a
// temporary file in the same folder, fsync it, rename it over the target, fsync the folder.
#pragma once

#include <expected>
#include <string>

namespace gpudoctor {

// Whether `path` may be replaced by a rename: it does not exist, or is a regular file (or, with
// `may_replace_link`, a link). Else the error "PATH exists and is not a regular file: not replaced".
std::expected<void, std::string> refuse_other_nodes(const std::string& path, bool may_replace_link);

// Writes `content` to `path` atomically with permission bits `mode`; creates missing parent folders. A `path`
// that exists and is not a regular file (a device such as /dev/null, a FIFO, a folder, a link) is refused.
std::expected<void, std::string> atomic_write(const std::string& path, const std::string& content,
                                              unsigned mode);

// Copies `from` over `to` atomically, keeping `from`'s permission bits and (when allowed) its owner. A `to`
// that is a link is replaced; one that is a device, a FIFO, a socket or a folder is refused.
std::expected<void, std::string> atomic_copy(const std::string& from, const std::string& to);

} // namespace gpudoctor
