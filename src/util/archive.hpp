// The one adapter over libarchive: pack a folder as .tar.gz, and unpack an untrusted archive safely.
#pragma once

#include "util/shared_library.hpp"
#include "util/unpack.hpp"

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>

namespace gpudoctor {

// Packs every file, folder and symlink under `dir` (paths relative to it) into a gzip-compressed tar, written
// to the open file `fd` (left open).
std::expected<void, std::string> write_tar_gz(const std::filesystem::path& dir, int fd);

// write_tar_gz into the file `archive`, replaced atomically (util/atomic_file), mode 0600.
std::expected<void, std::string> pack_tar_gz(const std::filesystem::path& dir,
                                             const std::filesystem::path& archive);

// unpack_archive_file in the project's std::expected form, once libarchive is there (util/shared_library;
// unpack.cpp itself stays free of <expected> for the fuzz build).
inline std::expected<void, std::string> extract_archive(const std::filesystem::path& archive,
                                                        const std::filesystem::path& dest,
                                                        const ArchiveLimits& limits) {
  if (auto library = libarchive_library().available(); !library) return library;
  if (auto refused = unpack_archive_file(archive, dest, limits)) return std::unexpected(std::move(*refused));
  return {};
}

} // namespace gpudoctor
