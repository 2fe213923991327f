// The live machine: real files, real commands, the real environment.
#pragma once

#include "system/run_cache.hpp"
#include "system/system_view.hpp"

#include <memory>
#include <mutex>

namespace gpudoctor {

class LiveView : public SystemView {
public:
  // `root` re-roots file reads (tests point it at a fake tree); "/" for the real machine.
  explicit LiveView(std::string root = "/");

  std::optional<std::string> read_file(const std::string& path) override;
  std::optional<std::string> read_range(const std::string& path, std::uint64_t offset,
                                        std::size_t length) override;
  std::optional<std::uint64_t> file_size(const std::string& path) override;
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override;
  std::optional<std::string> read_link(const std::string& path) override;
  std::optional<FileStat> stat(const std::string& path) override;
  CommandResult run(const CommandSpec& spec) override;
  std::map<std::string, std::string> environment() override;
  // One variable, without copying the whole environment.
  std::optional<std::string> env(const std::string& name) override;
  Identity identity() override;
  Kind kind() const override { return Kind::live; }

  // Same as `stat` but does not follow a final symlink.
  std::optional<FileStat> lstat(const std::string& path);
  // How many names (hard links) the file at `path` has, a final symlink not followed.
  std::optional<unsigned> link_count(const std::string& path);
  std::vector<std::pair<std::string, UntrustedProgram>> untrusted_programs() override;

protected:
  // Keeps what a run did not run as root (CommandResult::untrusted) for untrusted_programs.
  void note_untrusted(const CommandResult& r);

private:
  std::string real_path(const std::string& path) const;
  std::string m_root;
  std::map<std::string, std::string> m_env;
  std::mutex m_untrusted_mutex; // collectors run commands from several threads
  std::vector<std::pair<std::string, UntrustedProgram>> m_untrusted;
  // The caller's remembered answers (CommandSpec::cache): the real machine's only, never a re-rooted tree.
  std::unique_ptr<RunCache> m_run_cache;
};

} // namespace gpudoctor
