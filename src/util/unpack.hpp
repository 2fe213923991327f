// Unpacking an untrusted archive (a bundle from someone else's machine) with libarchive. No <expected> in
// this header's graph: the unpacker is fuzzed, and the fuzz build's clang 14 cannot compile libstdc++'s
// (docs/fuzzing.md); util/archive.hpp gives it the project's std::expected form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// What an untrusted archive may hold; the reason for each number is in docs/security.md ("Limits").
struct ArchiveLimits {
  std::uint64_t max_total_bytes = 256ULL * 1024 * 1024; // unpacked size
  std::uint64_t max_entry_bytes = 64ULL * 1024 * 1024;  // the most gpudoctor records of one file
  std::uint64_t max_entries = 50000;
  std::size_t max_name_bytes = 2048; // with the destination folder, every path stays below PATH_MAX
  std::size_t max_depth = 128;       // folders in a member name
  std::size_t max_link_bytes = 4095; // a symlink's target (PATH_MAX with its NUL)
};

// Unpacks the archive (a file, or bytes in memory) into `dest`, which must exist. The whole archive is
// checked before anything is written: absolute names, "..", hard links, device nodes, FIFOs and archives
// beyond `limits` are refused. Nothing is written through a symlink, so nothing lands outside `dest`.
// Symlinks are kept with their targets as recorded (a snapshot's links name paths of the recorded machine);
// readers resolve them inside the snapshot, never through the OS. Returns why the archive was refused (a
// message with member names escaped), or nothing when every member was unpacked. Never throws.
std::optional<std::string> unpack_archive_file(const std::filesystem::path& archive,
                                               const std::filesystem::path& dest,
                                               const ArchiveLimits& limits);
std::optional<std::string> unpack_archive_memory(std::string_view bytes, const std::filesystem::path& dest,
                                                 const ArchiveLimits& limits);

} // namespace gpudoctor
