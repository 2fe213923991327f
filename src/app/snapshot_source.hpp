// Opens a snapshot given on the command line: a folder, or a .tar.gz bundle unpacked safely into a
// temporary folder that lives as long as the returned object.
#pragma once

#include "system/replay_view.hpp"
#include "system/temp_files.hpp"

#include <expected>
#include <filesystem>
#include <memory>
#include <optional>

namespace gpudoctor {

class OpenedSnapshot {
public:
  ~OpenedSnapshot();
  OpenedSnapshot(const OpenedSnapshot&) = delete;
  OpenedSnapshot& operator=(const OpenedSnapshot&) = delete;
  ReplayView& view() { return *m_view; }

  static std::expected<std::unique_ptr<OpenedSnapshot>, std::string> open(const std::filesystem::path& path);

private:
  OpenedSnapshot() = default;
  std::unique_ptr<ReplayView> m_view;
  std::optional<temp::Folder> m_temp_dir; // where a bundle was unpacked; removed on destruction
};

} // namespace gpudoctor
