#include "util/unpack.hpp"

#include "util/gunzip_stream.hpp"
#include "util/libarchive_error.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>
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
// The archive's raw bytes from its start, for each reading (it is read twice: checked, then unpacked).
using RawSource = std::function<GunzipStream::Fill()>;

// The most content a valid archive within `limits` has: the members, a header and padding per member (long
// names included), the end blocks and record padding.
std::uint64_t max_content(const ArchiveLimits& limits) {
  return limits.max_total_bytes + limits.max_entries * 4096 + (1 << 20);
}

// One reading: libarchive reads the tar from the stream, which undoes gzip and verifies it (no libarchive
// filter: see util/gunzip_stream.hpp).
struct Reading {
  GunzipStream stream;
  std::array<char, 64 * 1024> buffer{};
  ReadPtr in{archive_read_new(), &archive_read_free};

  Reading(const RawSource& source, const ArchiveLimits& limits) : stream(source(), max_content(limits)) {
    archive_read_support_format_tar(in.get());
    archive_read_support_format_gnutar(in.get());
  }

  static la_ssize_t next_block(archive* a, void* self, const void** block) {
    auto* r = static_cast<Reading*>(self);
    auto n = r->stream.read(r->buffer.data(), r->buffer.size());
    if (!n) {
      archive_set_error(a, EINVAL, "%s", r->stream.error().c_str());
      return -1;
    }
    *block = r->buffer.data();
    return static_cast<la_ssize_t>(*n);
  }

  // Why it cannot be read, or nothing.
  std::optional<std::string> open() {
    if (archive_read_open(in.get(), this, nullptr, &Reading::next_block, nullptr) == ARCHIVE_OK)
      return std::nullopt;
    if (!stream.error().empty()) return stream.error();
    return "not a readable archive: " + libarchive_error(in.get());
  }

  // After the tar's end: the rest of the stream, so its last checks run.
  std::optional<std::string> finish() { return stream.finish(); }

  // The message for a failed read: the stream's own when it failed, else libarchive's.
  std::string damaged() const {
    return stream.error().empty() ? "damaged archive: " + libarchive_error(in.get()) : stream.error();
  }
};

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
std::optional<std::string> check_all(const RawSource& source, const ArchiveLimits& limits) {
  Reading reading(source, limits);
  if (auto failed = reading.open()) return failed;
  archive* in = reading.in.get();
  Tally tally;
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(in, &entry);
    if (rc == ARCHIVE_EOF) return reading.finish();
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return reading.damaged();
    std::string name;
    if (auto refused = check_member(entry, limits, tally, name)) return refused;
    if (archive_read_data_skip(in) != ARCHIVE_OK) return reading.damaged();
  }
}

// Copies one regular member's data, never more than it declared.
std::optional<std::string> copy_data(const Reading& reading, archive* disk, const std::string& name,
                                     std::int64_t declared) {
  archive* in = reading.in.get();
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
  if (rc != ARCHIVE_EOF) return fmt::format("{} (at {:?})", reading.damaged(), name);
  return std::nullopt;
}

std::optional<std::string> unpack(const RawSource& source, const fs::path& dest,
                                  const ArchiveLimits& limits) {
  try {
    std::error_code ec;
    fs::path root = fs::canonical(dest, ec); // no symlink in the prefix, or SECURE_SYMLINKS would refuse it
    if (ec) return fmt::format("cannot use {}: {}", dest.string(), ec.message());
    if (auto refused = check_all(source, limits)) return refused;
    Reading reading(source, limits);
    if (auto failed = reading.open()) return failed;
    archive* in = reading.in.get();
    WritePtr disk(archive_write_disk_new(), &archive_write_free);
    // Member names are checked and joined to `root`; libarchive then refuses ".." and writing through any
    // symlink on the way (a member may not redirect a later one outside).
    archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                   ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                                   ARCHIVE_EXTRACT_NO_OVERWRITE);
    Tally tally;
    archive_entry* entry = nullptr;
    for (;;) {
      int rc = archive_read_next_header(in, &entry);
      // The whole stream again: the file may have changed since the first reading.
      if (rc == ARCHIVE_EOF) return reading.finish();
      if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return reading.damaged();
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
        if (auto failed = copy_data(reading, disk.get(), name, archive_entry_size(entry))) return failed;
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
      [fd]() -> GunzipStream::Fill {
        bool at_start = ::lseek(fd, 0, SEEK_SET) == 0;
        return [fd, at_start](char* buf, std::size_t cap) -> long {
          if (!at_start) return -1; // errno from lseek
          ssize_t n;
          while ((n = ::read(fd, buf, cap)) < 0 && errno == EINTR) {
          }
          return n;
        };
      },
      dest, limits);
}

std::optional<std::string> unpack_archive_memory(std::string_view bytes, const fs::path& dest,
                                                 const ArchiveLimits& limits) {
  return unpack(
      [bytes]() -> GunzipStream::Fill {
        return [bytes, at = std::size_t{0}](char* buf, std::size_t cap) mutable -> long {
          std::size_t n = std::min(cap, bytes.size() - at);
          std::memcpy(buf, bytes.data() + at, n);
          at += n;
          return static_cast<long>(n);
        };
      },
      dest, limits);
}

} // namespace gpudoctor
