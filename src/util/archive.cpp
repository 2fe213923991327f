#include "util/archive.hpp"

#include "util/atomic_file.hpp"
#include "util/libarchive_error.hpp"
#include "util/shared_library.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
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
using EntryPtr = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

// Adds one file, folder or symlink (never followed) under the name `rel`.
std::expected<void, std::string> add_member(archive* out, const fs::path& p, const std::string& rel) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return {};
  EntryPtr entry(archive_entry_new(), &archive_entry_free);
  archive_entry_set_pathname(entry.get(), rel.c_str());
  archive_entry_set_mtime(entry.get(), st.st_mtime, 0);
  std::error_code ec;
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
    return {};
  }
  if (archive_write_header(out, entry.get()) != ARCHIVE_OK)
    return std::unexpected(fmt::format("cannot add {:?}: {}", rel, libarchive_error(out)));
  if (!S_ISREG(st.st_mode)) return {};
  std::unique_ptr<FILE, int (*)(FILE*)> in(std::fopen(p.c_str(), "rb"), &std::fclose);
  if (!in) return std::unexpected(fmt::format("cannot read {:?}", p.string()));
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, in.get())) > 0)
    if (archive_write_data(out, buf, n) != static_cast<la_ssize_t>(n))
      return std::unexpected(fmt::format("cannot add {:?}: {}", rel, libarchive_error(out)));
  return {};
}

} // namespace

std::expected<void, std::string> write_tar_gz(const fs::path& dir, int fd) {
  if (auto library = libarchive_library().available(); !library) return library;
  WritePtr out(archive_write_new(), &archive_write_free);
  archive_write_add_filter_gzip(out.get());
  // GNU tar format stores names as the bytes they are: a file name that is not UTF-8 (in a listed folder) is
  // recorded, not a reason to fail the bundle (pax must translate names to UTF-8, and refuses). Long names
  // go in GNU's long-name members, which every tar reads.
  archive_write_set_format_gnutar(out.get());
  if (archive_write_open_fd(out.get(), fd) != ARCHIVE_OK) return std::unexpected(libarchive_error(out.get()));
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return std::unexpected(fmt::format("cannot read {}: {}", dir.string(), ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) return std::unexpected(fmt::format("cannot read {}: {}", dir.string(), ec.message()));
    std::string rel = it->path().lexically_relative(dir).generic_string(); // never through links
    if (auto added = add_member(out.get(), it->path(), rel); !added) return added;
  }
  if (archive_write_close(out.get()) != ARCHIVE_OK) return std::unexpected(libarchive_error(out.get()));
  return {};
}

std::expected<void, std::string> pack_tar_gz(const fs::path& dir, const fs::path& archive_path) {
  // Written beside the target under a temporary name, renamed when complete: a failure (a full disk)
  // leaves no truncated bundle and keeps an older one. 0600: a bundle holds a machine's configuration,
  // private whatever the umask. Only a regular file is replaced (util/atomic_file).
  return atomic_replace(archive_path.string(), 0600, [&](int fd) { return write_tar_gz(dir, fd); });
}

} // namespace gpudoctor
