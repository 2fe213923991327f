// Replacing a file so that a reader (or a crash) sees the old content or the new one, never a mix: write a
// temporary file in the same folder, fsync it, rename it over the target, fsync the folder. Every step is
// relative to the folder's descriptor, opened once: a folder renamed or swapped for a link meanwhile cannot
// redirect the write, and the temporary file is made O_EXCL|O_NOFOLLOW, never through a planted link.
// (An output root writes into a folder another user can change: system/output_file opens that folder.)
#pragma once

#include <expected>
#include <functional>
#include <string>
#include <string_view>

struct stat;

namespace gpudoctor {

// Writes the new file's content to `fd` (an open, empty file); an error names what failed.
using FillFile = std::function<std::expected<void, std::string>(int fd)>;

struct ReplaceOptions {
  bool may_replace_link = false;                   // a restore puts a file back in place of a link
  const struct stat* owner = nullptr;              // give the new file this owner and group (when allowed)
  std::function<void(const std::string&)> started; // the temporary file's path, once made (to remove it
  std::function<void(const std::string&)> ended;   // on an interruption), and again once gone or renamed
};

// Puts a new file, filled by `fill` with permission bits `mode`, in place of `name` in the open folder
// `dirfd` (a descriptor of a folder: O_PATH is enough, but the folder is only fsynced through a readable
// one). `shown`: the target's path, for messages. A `name` that exists and is not a regular file (a device
// such as /dev/null, a FIFO, a folder, a link unless allowed) is refused and left as it is.
std::expected<void, std::string> replace_in_folder(int dirfd, const std::string& name,
                                                   const std::string& shown, unsigned mode,
                                                   const FillFile& fill, const ReplaceOptions& options = {});

// A FillFile that writes `content` whole.
FillFile fill_with(std::string_view content);

// Whether `path` may be replaced by a rename: it does not exist, or is a regular file (or, with
// `may_replace_link`, a link). Else the error "PATH exists and is not a regular file: not replaced".
std::expected<void, std::string> refuse_other_nodes(const std::string& path, bool may_replace_link);

// replace_in_folder for `path`: its folder reached as the kernel resolves it (missing folders created). For
// gpudoctor's own folders (its records, its staging); an output named on the command line goes through
// system/output_file.
std::expected<void, std::string> atomic_replace(const std::string& path, unsigned mode, const FillFile& fill);

// Writes `content` to `path` atomically with permission bits `mode`; creates missing parent folders. A `path`
// that exists and is not a regular file (a device such as /dev/null, a FIFO, a folder, a link) is refused.
std::expected<void, std::string> atomic_write(const std::string& path, const std::string& content,
                                              unsigned mode);

// Copies `from` over `to` atomically, keeping `from`'s permission bits and (when allowed) its owner. A `to`
// that is a link is replaced; one that is a device, a FIFO, a socket or a folder is refused.
std::expected<void, std::string> atomic_copy(const std::string& from, const std::string& to);

} // namespace gpudoctor
