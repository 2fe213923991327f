// Whole files as strings: one way to read and write them, binary-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// The whole content of a file; empty when it cannot be opened or read.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// Replaces the content of a file (not atomically: see atomic_file.hpp for that); false when it cannot.
bool write_whole_file(const std::filesystem::path& path, std::string_view content);

} // namespace gpudoctor
