#include "util/archive.hpp"

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

std::string error_of(archive* a) {
  const char* msg = archive_error_string(a);
  return msg ? msg : "unknown libarchive error";
}

} // namespace

std::expected<void, std::string> pack_tar_gz(const fs::path& dir, const fs::path& archive_path) {
  WritePtr out(archive_write_new(), &archive_write_free);
  archive_write_add_filter_gzip(out.get());
  archive_write_set_format_pax_restricted(out.get());
  // A bundle holds a machine's configuration: private (0600) whatever the umask, also when it replaces a
  // file; never written through a symlink (one planted where root writes would redirect the write).
  int fd = ::open(archive_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return std::unexpected(fmt::format("cannot write {}: {}", archive_path.string(), std::strerror(errno)));
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
  if (::fchmod(fd, 0600) != 0)
    return std::unexpected(
        fmt::format("cannot make {} private: {}", archive_path.string(), std::strerror(errno)));
  if (archive_write_open_fd(out.get(), fd) != ARCHIVE_OK)
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

} // namespace gpudoctor
