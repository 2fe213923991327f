// For tests (--root DIR of fix and migrate): the files of a throwaway root, such as a debootstrap chroot,
// read as if they were this machine's. Commands are not run (they would run on the host, not in DIR), but
// for the Python interpreters' sys.path probes and `mokutil --sb-state` (Secure Boot), which run in
// `chroot DIR` when gpudoctor is root (the environment is a login shell's), and rpm's queries, which run as
// `rpm --root DIR` (an RPM root made by dnf --installroot has nothing to chroot into). So the facts are those
// of DIR's files, its Pythons, its mokutil and its rpm database. `bundle --root DIR`
// records a snapshot of it, so tests can compare a plan made --from that snapshot with the live one.
// What runs in DIR passes the rule root applies to what it runs (system/root_exec.hpp), judged below DIR.
#pragma once

#include "system/live_view.hpp"

namespace gpudoctor {

// A LiveView of DIR's files (so `bundle --root` records it like a live machine) that runs no command.
// Links are resolved inside DIR, as a chroot resolves them (/var/run -> /run is DIR's /run, not the host's).
class RootedView : public LiveView {
public:
  explicit RootedView(std::string root) : LiveView(root), m_dir(std::move(root)) {}

  std::optional<std::string> read_file(const std::string& path) override;
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override;
  std::optional<std::string> read_link(const std::string& path) override;
  std::optional<FileStat> stat(const std::string& path) override;
  CommandResult run(const CommandSpec& spec) override;
  std::map<std::string, std::string> environment() override;

private:
  // `path` with every link on the way resolved inside DIR (the last one too when `follow_last`).
  std::optional<std::string> resolve(const std::string& path, bool follow_last);
  std::string m_dir;
};

} // namespace gpudoctor
