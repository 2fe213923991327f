// Where gpudoctor's temporary folders go. An unusable TMPDIR (relative, missing, not a folder, not writable)
// is an error to report, never a reason to work in the current folder, which std::filesystem's
// temp_directory_path(ec) gives back as an empty path.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

namespace gpudoctor {

// $TMPDIR when set and not empty, else /tmp; the error names TMPDIR and says what is wrong with it.
std::expected<std::filesystem::path, std::string> temp_root();

} // namespace gpudoctor
