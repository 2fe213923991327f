// A folder of gpudoctor's own records (the history, the interpreter cache): the account's own and writable
// by nobody else; as root, also on a path no other user can change (system/root_trust). What such a folder
// holds is read only when its owner wrote it (distrust_open_record).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

// A folder opened as its owner's own: the descriptor (O_DIRECTORY, not followed through a link; the caller
// closes it) and the absolute path it was opened at.
struct OwnFolder {
  int fd = -1;
  std::string path;
};

// `dir` opened, made 0700 when `create`, and its missing folders above with `parents_mode` (0755 for
// /var/cache/gpudoctor, which apt's sandbox user must cross to read a migration's downloads). `what` names it
// in the errors ("history", "interpreter cache"), which say why it cannot be used and how to mend it.
std::expected<OwnFolder, std::string> open_own_folder(const std::string& dir, bool create,
                                                      std::string_view what, unsigned parents_mode = 0700);

// The names in the open folder `fd` ("." and ".." included), through a descriptor of its own (the folder's
// stays where it is); the error names `path`.
std::expected<std::vector<std::string>, std::string> folder_names(int fd, const std::string& path);

} // namespace gpudoctor
