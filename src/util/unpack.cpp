#include "util/unpack.hpp"

#include "util/libarchive_error.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

using ReadPtr = std::unique_ptr<archive, decltype(&archive_read_free)>;
using WritePtr = std::unique_ptr<archive, decltype(&archive_write_free)>;
// Opens a fresh reader on the archive (the archive is read twice: checked, then unpacked).
using Opener = std::function<bool(archive*)>;

ReadPtr new_reader() {
  ReadPtr in(archive_read_new(), &archive_read_free);
  archive_read_support_filter_all(in.get());
  archive_read_support_format_tar(in.get());
  archive_read_support_format_gnutar(in.get());
  return in;
}

// Running totals over the members seen so far.
struct Tally {
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};

// Checks one member against the rules and limits; sets `name` to its name below the destination, empty for
// the archive's own root ("." or "./"). Returns why it is refused, or nothing.
std::optional<std::string> check_member(archive_entry* entry, const ArchiveLimits& limits, Tally& tally,
                                        std::string& name) {
  if (++tally.entries > limits.max_entries)
    return fmt::format("more than {} members: refused", limits.max_entries);
  const char* raw_name = archive_entry_pathname(entry);
  name = raw_name ? raw_name : "";
  while (text::starts_with(name, "./"))
    name.erase(0, 2);
  if (name.empty() || name == ".") {
    name.clear();
    return std::nullopt;
  }
  if (name.size() > limits.max_name_bytes)
    return fmt::format("a member name is longer than {} bytes: refused", limits.max_name_bytes);
  if (!text::stays_inside(name)) return fmt::format("member {:?} would land outside the folder", name);
  if (static_cast<std::size_t>(std::count(name.begin(), name.end(), '/')) > limits.max_depth)
    return fmt::format("member {:?} is nested deeper than {} folders: refused", name, limits.max_depth);
  if (archive_entry_hardlink(entry)) return fmt::format("member {:?} is a hard link: refused", name);
  auto type = archive_entry_filetype(entry);
  if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
    return fmt::format("member {:?} is not a file, folder or symlink: refused", name);
  if (type == AE_IFLNK) {
    const char* target = archive_entry_symlink(entry);
    if (!target || !*target || std::strlen(target) > limits.max_link_bytes)
      return fmt::format("member {:?} is a symlink without a target of at most {} bytes", name,
                         limits.max_link_bytes);
  }
  std::int64_t size = archive_entry_size(entry);
  if (size < 0 || static_cast<std::uint64_t>(size) > limits.max_entry_bytes)
    return fmt::format("member {:?} is too large (more than {} MiB)", name, limits.max_entry_bytes >> 20);
  tally.bytes += static_cast<std::uint64_t>(size);
  if (tally.bytes > limits.max_total_bytes)
    return fmt::format("unpacks to more than {} MiB: refused", limits.max_total_bytes >> 20);
  return std::nullopt;
}

// The first pass: every header checked, no data written (a refused archive leaves nothing behind).
std::optional<std::string> check_all(const Opener& open, const ArchiveLimits& limits) {
  ReadPtr in = new_reader();
  if (!open(in.get())) return "not a readable archive: " + libarchive_error(in.get());
  Tally tally;
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(in.get(), &entry);
    if (rc == ARCHIVE_EOF) return std::nullopt;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return "damaged archive: " + libarchive_error(in.get());
    std::string name;
    if (auto refused = check_member(entry, limits, tally, name)) return refused;
    if (archive_read_data_skip(in.get()) != ARCHIVE_OK)
      return "damaged archive: " + libarchive_error(in.get());
  }
}

// Copies one regular member's data, never more than it declared.
std::optional<std::string> copy_data(archive* in, archive* disk, const std::string& name,
                                     std::int64_t declared) {
  const void* buf;
  size_t len;
  la_int64_t offset;
  int rc;
  while ((rc = archive_read_data_block(in, &buf, &len, &offset)) == ARCHIVE_OK) {
    if (offset < 0 || static_cast<std::uint64_t>(offset) + len > static_cast<std::uint64_t>(declared))
      return fmt::format("member {:?} is larger than declared", name);
    if (archive_write_data_block(disk, buf, len, offset) != ARCHIVE_OK)
      return fmt::format("cannot write {:?}: {}", name, libarchive_error(disk));
  }
  if (rc != ARCHIVE_EOF) return fmt::format("damaged archive at {:?}: {}", name, libarchive_error(in));
  return std::nullopt;
}

std::optional<std::string> unpack(const Opener& open, const fs::path& dest, const ArchiveLimits& limits) {
  try {
    std::error_code ec;
    fs::path root = fs::canonical(dest, ec); // no symlink in the prefix, or SECURE_SYMLINKS would refuse it
    if (ec) return fmt::format("cannot use {}: {}", dest.string(), ec.message());
    if (auto refused = check_all(open, limits)) return refused;
    ReadPtr in = new_reader();
    if (!open(in.get())) return "not a readable archive: " + libarchive_error(in.get());
    WritePtr disk(archive_write_disk_new(), &archive_write_free);
    // Member names are checked and joined to `root`; libarchive then refuses ".." and writing through any
    // symlink on the way (a member may not redirect a later one outside).
    archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                   ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                                   ARCHIVE_EXTRACT_NO_OVERWRITE);
    Tally tally;
    archive_entry* entry = nullptr;
    for (;;) {
      int rc = archive_read_next_header(in.get(), &entry);
      if (rc == ARCHIVE_EOF) return std::nullopt;
      if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return "damaged archive: " + libarchive_error(in.get());
      std::string name;
      // Checked again: the second reading must not differ from the first.
      if (auto refused = check_member(entry, limits, tally, name)) return refused;
      if (name.empty()) continue;
      auto type = archive_entry_filetype(entry);
      archive_entry_set_pathname(entry, (root / name).c_str());
      archive_entry_set_perm(entry, type == AE_IFDIR ? 0755 : 0644);
      if (archive_write_header(disk.get(), entry) != ARCHIVE_OK)
        return fmt::format("cannot unpack {:?}: {}", name, libarchive_error(disk.get()));
      if (type == AE_IFREG && archive_entry_size(entry) > 0)
        if (auto failed = copy_data(in.get(), disk.get(), name, archive_entry_size(entry))) return failed;
      if (archive_write_finish_entry(disk.get()) != ARCHIVE_OK)
        return fmt::format("cannot unpack {:?}: {}", name, libarchive_error(disk.get()));
    }
  } catch (const std::exception& e) { // allocation failure, or fs::path on a name it cannot convert
    return fmt::format("cannot unpack: {}", e.what());
  }
}

} // namespace

std::optional<std::string> unpack_archive_file(const fs::path& archive_path, const fs::path& dest,
                                               const ArchiveLimits& limits) {
  // O_NONBLOCK: a FIFO given as the archive must not block the open; it is then refused as not a file.
  int fd = ::open(archive_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return fmt::format("cannot open {}: {}", archive_path.string(), std::strerror(errno));
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return fmt::format("{} is not a regular file: refused", archive_path.string());
  return unpack(
      [&](archive* a) {
        return ::lseek(fd, 0, SEEK_SET) == 0 && archive_read_open_fd(a, fd, 65536) == ARCHIVE_OK;
      },
      dest, limits);
}

std::optional<std::string> unpack_archive_memory(std::string_view bytes, const fs::path& dest,
                                                 const ArchiveLimits& limits) {
  return unpack(
      [&](archive* a) { return archive_read_open_memory(a, bytes.data(), bytes.size()) == ARCHIVE_OK; }, dest,
      limits);
}

} // namespace gpudoctor
