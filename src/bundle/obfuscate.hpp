// --obfuscate: the hostname and the user name replaced by stand-ins everywhere in a recorded snapshot (file
// contents, file and folder names, links, command outputs and keys), consistently, so that the snapshot still
// replays as the machine it was: /home/alice/.bashrc becomes /home/user-1/.bashrc, in the tree and in every
// path that names it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpudoctor {

using StandIns = std::vector<std::pair<std::string, std::string>>; // word -> stand-in

// Replaces each word where it stands alone: not inside a longer run of letters and digits ("ai" is replaced
// in "/home/ai/x" and "ai.example", not in "maintainers").
std::string replace_words(std::string_view text, const StandIns& words);

// Applies replace_words to every text file, link target and name below `dir` (files holding a NUL byte are
// left alone), except the files listed in `skip` (relative to `dir`, already scrubbed). Returns the relative
// paths whose name or content changed.
std::vector<std::string> obfuscate_tree(const std::filesystem::path& dir, const StandIns& words,
                                        const std::vector<std::string>& skip);

} // namespace gpudoctor
