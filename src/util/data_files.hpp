// The one lookup of gpudoctor's data files (knowledge tables, catalogues, recipes): the copies built into
// the binary (util/embedded.hpp), or those of a folder given on the command line (`--knowledge DIR`, the
// source folder of `fix --root` tests).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

// The names ("gpus.yaml") of the files of the built-in folder `folder` ("checks/knowledge") whose names end
// in `suffix`, or when `dir` is not empty those directly in `dir` (regular files; a dangling link is
// skipped). Sorted by name.
std::expected<std::vector<std::string>, std::string>
list_data_files(std::string_view folder, const std::string& dir, std::string_view suffix);

// What errors call a data file: "folder/name" (built in) or "dir/name".
std::string data_file_label(std::string_view folder, const std::string& dir, std::string_view name);

// The text of `name` in the built-in `folder`, or in `dir` when it is not empty.
std::expected<std::string, std::string> read_data_file(std::string_view folder, const std::string& dir,
                                                       std::string_view name);

// Where the fix data files (recipes, stack tables) are read: "" (built in), or `source_dir`/fixes.
std::string fixes_folder(const std::string& source_dir);

} // namespace gpudoctor
