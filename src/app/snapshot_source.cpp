#include "app/snapshot_source.hpp"

#include "util/archive.hpp"

#include <cstdlib>
#include <unistd.h>

namespace gpudoctor {

namespace fs = std::filesystem;

OpenedSnapshot::~OpenedSnapshot() {
  m_view.reset();
  if (!m_temp_dir.empty()) {
    std::error_code ec;
    fs::remove_all(m_temp_dir, ec);
  }
}

std::expected<std::unique_ptr<OpenedSnapshot>, std::string> OpenedSnapshot::open(const fs::path& path) {
  std::unique_ptr<OpenedSnapshot> snap(new OpenedSnapshot());
  std::error_code ec;
  fs::path root = path;
  if (!fs::exists(path, ec)) return std::unexpected(path.string() + ": no such file or folder");
  if (!fs::is_directory(path, ec)) {
    std::string tmpl = (fs::temp_directory_path(ec) / "gpudoctor-snapshot-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      return std::unexpected("cannot create a temporary folder to unpack " + path.string());
    snap->m_temp_dir = tmpl;
    auto unpacked = extract_archive(path, snap->m_temp_dir, ArchiveLimits{});
    if (!unpacked) return std::unexpected(path.string() + ": " + unpacked.error());
    root = snap->m_temp_dir;
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
  snap->m_root = root;
  return snap;
}

} // namespace gpudoctor
