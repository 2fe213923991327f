// Opens a snapshot given on the command line: a folder, or a .tar.gz bundle unpacked safely into a
// temporary folder that lives as long as the returned object.
#pragma once

#include "system/replay_view.hpp"

#include <expected>
#include <filesystem>
#include <memory>

namespace gpudoctor {

class OpenedSnapshot {
public:
  ~OpenedSnapshot();
  OpenedSnapshot(const OpenedSnapshot&) = delete;
  OpenedSnapshot& operator=(const OpenedSnapshot&) = delete;
  ReplayView& view() { return *m_view; }
  // The snapshot's folder (below the temporary folder for a bundle): a bundle's report.json is there.
  const std::filesystem::path& root() const { return m_root; }

  static std::expected<std::unique_ptr<OpenedSnapshot>, std::string> open(const std::filesystem::path& path);

private:
  OpenedSnapshot() = default;
  std::unique_ptr<ReplayView> m_view;
  std::filesystem::path m_temp_dir; // removed on destruction; empty for a folder
  std::filesystem::path m_root;
};

} // namespace gpudoctor
