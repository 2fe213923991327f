#include "util/archive.hpp"

#include "util/text.hpp"

#include <memory>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

using ReadPtr = std::unique_ptr<archive, decltype(&archive_read_free)>;
using WritePtr = std::unique_ptr<archive, decltype(&archive_write_free)>;
using EntryPtr = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

std::string error_of(archive* a) {
  const char* msg = archive_error_string(a);
  return msg ? msg : "unknown libarchive error";
}

bool safe_member_name(const std::string& name) {
  if (name.empty() || name[0] == '/') return false;
  for (const auto& part : text::split(name, '/'))
    if (part == "..") return false;
  return true;
}

} // namespace

std::expected<void, std::string> pack_tar_gz(const fs::path& dir, const fs::path& archive_path) {
  WritePtr out(archive_write_new(), &archive_write_free);
  archive_write_add_filter_gzip(out.get());
  archive_write_set_format_pax_restricted(out.get());
  if (archive_write_open_filename(out.get(), archive_path.c_str()) != ARCHIVE_OK)
    return std::unexpected("cannot write " + archive_path.string() + ": " + error_of(out.get()));
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return std::unexpected("cannot read " + dir.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return std::unexpected("cannot read " + dir.string() + ": " + ec.message());
    const fs::path& p = it->path();
    std::string rel = p.lexically_relative(dir).generic_string(); // never through links
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;
    EntryPtr entry(archive_entry_new(), &archive_entry_free);
    archive_entry_set_pathname(entry.get(), rel.c_str());
    archive_entry_set_mtime(entry.get(), st.st_mtime, 0);
    std::string content;
    if (S_ISLNK(st.st_mode)) {
      auto target = fs::read_symlink(p, ec);
      archive_entry_set_filetype(entry.get(), AE_IFLNK);
      archive_entry_set_perm(entry.get(), 0777);
      archive_entry_set_symlink(entry.get(), target.c_str());
    } else if (S_ISDIR(st.st_mode)) {
      archive_entry_set_filetype(entry.get(), AE_IFDIR);
      archive_entry_set_perm(entry.get(), 0755);
    } else if (S_ISREG(st.st_mode)) {
      archive_entry_set_filetype(entry.get(), AE_IFREG);
      archive_entry_set_perm(entry.get(), 0644);
      archive_entry_set_size(entry.get(), st.st_size);
    } else {
      continue;
    }
    if (archive_write_header(out.get(), entry.get()) != ARCHIVE_OK)
      return std::unexpected("cannot add " + rel + ": " + error_of(out.get()));
    if (S_ISREG(st.st_mode)) {
      FILE* in = std::fopen(p.c_str(), "rb");
      if (!in) return std::unexpected("cannot read " + p.string());
      char buf[65536];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, in)) > 0)
        archive_write_data(out.get(), buf, n);
      std::fclose(in);
    }
  }
  if (archive_write_close(out.get()) != ARCHIVE_OK)
    return std::unexpected("cannot finish " + archive_path.string() + ": " + error_of(out.get()));
  return {};
}

std::expected<void, std::string> extract_archive(const fs::path& archive_path, const fs::path& dest,
                                                 const ArchiveLimits& limits) {
  ReadPtr in(archive_read_new(), &archive_read_free);
  archive_read_support_filter_all(in.get());
  archive_read_support_format_tar(in.get());
  archive_read_support_format_gnutar(in.get());
  if (archive_read_open_filename(in.get(), archive_path.c_str(), 65536) != ARCHIVE_OK)
    return std::unexpected("not a readable archive: " + error_of(in.get()));
  WritePtr disk(archive_write_disk_new(), &archive_write_free);
  // Member names are checked below and joined to `root`; libarchive then refuses ".." and writing through
  // any symlink on the way (a member may not redirect a later one outside).
  archive_write_disk_set_options(disk.get(), ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                 ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                                 ARCHIVE_EXTRACT_NO_OVERWRITE);
  std::error_code ec;
  fs::path root = fs::canonical(dest, ec); // no symlink in the prefix, or SECURE_SYMLINKS would refuse it
  if (ec) return std::unexpected("cannot use " + dest.string() + ": " + ec.message());
  std::uint64_t total = 0, entries = 0;
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(in.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
      return std::unexpected("damaged archive: " + error_of(in.get()));
    if (++entries > limits.max_entries)
      return std::unexpected("more than " + std::to_string(limits.max_entries) +
                             " members: refusing to unpack");
    const char* raw_name = archive_entry_pathname(entry);
    std::string name = raw_name ? raw_name : "";
    while (text::starts_with(name, "./"))
      name = name.substr(2);
    if (name.empty() || name == ".") continue;
    if (!safe_member_name(name))
      return std::unexpected("member \"" + name + "\" would land outside the folder");
    auto type = archive_entry_filetype(entry);
    if (archive_entry_hardlink(entry))
      return std::unexpected("member \"" + name + "\" is a hard link: refused");
    if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
      return std::unexpected("member \"" + name + "\" is not a file, folder or symlink: refused");
    std::int64_t size = archive_entry_size(entry);
    if (size < 0 || static_cast<std::uint64_t>(size) > limits.max_entry_bytes)
      return std::unexpected("member \"" + name + "\" is too large");
    total += static_cast<std::uint64_t>(size);
    if (total > limits.max_total_bytes)
      return std::unexpected("unpacks to more than the size limit: refused");
    archive_entry_set_pathname(entry, (root / name).c_str());
    archive_entry_set_perm(entry, type == AE_IFDIR ? 0755 : 0644);
    if (archive_write_header(disk.get(), entry) != ARCHIVE_OK)
      return std::unexpected("cannot unpack \"" + name + "\": " + error_of(disk.get()));
    if (type == AE_IFREG && size > 0) {
      const void* buf;
      size_t len;
      la_int64_t offset;
      std::uint64_t written = 0;
      while ((rc = archive_read_data_block(in.get(), &buf, &len, &offset)) == ARCHIVE_OK) {
        written += len;
        if (written > limits.max_entry_bytes)
          return std::unexpected("member \"" + name + "\" is larger than declared");
        if (archive_write_data_block(disk.get(), buf, len, offset) != ARCHIVE_OK)
          return std::unexpected("cannot write \"" + name + "\": " + error_of(disk.get()));
      }
      if (rc != ARCHIVE_EOF)
        return std::unexpected("damaged archive at \"" + name + "\": " + error_of(in.get()));
    }
    archive_write_finish_entry(disk.get());
  }
  return {};
}

} // namespace gpudoctor
