// Whole files as strings: one way to read and write them, binary-safe.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// The whole content of a file; empty when it cannot be opened or read.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// Reads an open descriptor to its end (EINTR retried). The error is the reason: the system's text, or
// "larger than N MiB" once more than `max_bytes` were read (so no hostile file fills the memory).
std::expected<std::string, std::string> read_descriptor(int fd, std::size_t max_bytes);

// Replaces the content of a file (not atomically: see atomic_file.hpp for that). The error names the file
// and the reason (a full disk shows when the data is flushed, so the file is closed before it is judged).
std::expected<void, std::string> write_whole_file(const std::filesystem::path& path,
                                                  std::string_view content);

} // namespace gpudoctor
