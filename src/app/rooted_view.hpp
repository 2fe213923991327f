// For tests (--root DIR of fix and migrate): the files of a throwaway root, such as a debootstrap chroot,
// read as if they were this machine's. Commands are not run (they would run on the host, not in DIR) and
// the environment is a login shell's, so the facts are those of DIR's files alone.
#pragma once

#include "system/live_view.hpp"

namespace gpudoctor {

class RootedView : public SystemView {
public:
  explicit RootedView(std::string root) : m_files(std::move(root)) {}

  std::optional<std::string> read_file(const std::string& path) override { return m_files.read_file(path); }
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override {
    return m_files.list_dir(path);
  }
  std::optional<std::string> read_link(const std::string& path) override { return m_files.read_link(path); }
  std::optional<FileStat> stat(const std::string& path) override { return m_files.stat(path); }
  CommandResult run(const CommandSpec& spec) override;
  std::map<std::string, std::string> environment() override;
  Identity identity() override { return m_files.identity(); }
  std::string kind() const override { return "live"; }

private:
  LiveView m_files;
};

} // namespace gpudoctor
