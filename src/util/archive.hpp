// The one adapter over libarchive: pack a folder as .tar.gz, and unpack an untrusted archive safely.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>

namespace gpudoctor {

struct ArchiveLimits {
  std::uint64_t max_total_bytes = 2ULL * 1024 * 1024 * 1024; // unpacked size
  std::uint64_t max_entry_bytes = 512ULL * 1024 * 1024;
  std::uint64_t max_entries = 200000;
};

// Packs every file, folder and symlink under `dir` (paths relative to it) into a gzip-compressed tar.
std::expected<void, std::string> pack_tar_gz(const std::filesystem::path& dir,
                                             const std::filesystem::path& archive);

// Unpacks into `dest` (which must exist). Refuses absolute names, "..", hard links, device nodes and
// archives beyond `limits`, and never writes through a symlink, so nothing lands outside `dest`. Symlinks are
// kept with their targets as recorded (a snapshot's links name paths of the recorded machine); readers
// resolve them inside the snapshot, never through the OS.
std::expected<void, std::string> extract_archive(const std::filesystem::path& archive,
                                                 const std::filesystem::path& dest,
                                                 const ArchiveLimits& limits);

} // namespace gpudoctor
