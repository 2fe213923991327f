#include "app/snapshot_source.hpp"

#include "util/archive.hpp"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

OpenedSnapshot::~OpenedSnapshot() {
  m_view.reset(); // before its folder goes
}

std::expected<std::unique_ptr<OpenedSnapshot>, std::string> OpenedSnapshot::open(const fs::path& path) {
  std::unique_ptr<OpenedSnapshot> snap(new OpenedSnapshot());
  std::error_code ec;
  fs::path root = path;
  // stat, not open: a FIFO or a device given as --from is refused without opening it (a FIFO would block).
  struct stat st {};
  if (path.empty()) return std::unexpected("an empty path is no snapshot");
  if (::stat(path.c_str(), &st) != 0)
    return std::unexpected(fmt::format("{}: {}", path.string(), std::strerror(errno)));
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
    return std::unexpected(
        fmt::format("{}: not a folder or a regular file (a bundle): refused", path.string()));
  if (!S_ISDIR(st.st_mode)) {
    auto folder = temp::Folder::create("snapshot");
    if (!folder) return std::unexpected(fmt::format("cannot unpack {}: {}", path.string(), folder.error()));
    snap->m_temp_dir = std::move(*folder);
    auto unpacked = extract_archive(path, snap->m_temp_dir->path(), ArchiveLimits{});
    if (!unpacked) return std::unexpected(path.string() + ": " + unpacked.error());
    root = snap->m_temp_dir->path();
    // A bundle may hold its snapshot in one top folder.
    if (!fs::exists(root / "manifest.json", ec)) {
      std::vector<fs::path> dirs;
      for (const auto& entry : fs::directory_iterator(root, ec))
        if (entry.is_directory(ec) && !entry.is_symlink(ec)) dirs.push_back(entry.path());
      if (dirs.size() == 1 && fs::exists(dirs[0] / "manifest.json", ec)) root = dirs[0];
    }
  }
  auto view = ReplayView::open(root);
  if (!view) return std::unexpected(path.string() + ": " + view.error());
  snap->m_view = std::move(*view);
  return snap;
}

} // namespace gpudoctor
