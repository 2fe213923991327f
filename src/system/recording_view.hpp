// The live machine, written down as it is read: every file read, folder listed, link, stat and command goes
// into a snapshot folder (format 1) as it happens. `gpudoctor bundle` is this plus a report and redaction.
#pragma once

#include "system/foreign_links.hpp"
#include "system/live_view.hpp"
#include "system/snapshot.hpp"
#include "util/json.hpp"

#include <filesystem>
#include <mutex>

namespace gpudoctor {

class RecordingView : public SystemView {
public:
  RecordingView(LiveView& live, std::filesystem::path out_dir, std::string tool);

  std::optional<std::string> read_file(const std::string& path) override;
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override;
  std::optional<std::string> read_link(const std::string& path) override;
  std::optional<FileStat> stat(const std::string& path) override;
  // Asked of the live machine, not recorded: a file too large to read is not in the snapshot at all.
  std::optional<std::uint64_t> file_size(const std::string& path) override { return m_live.file_size(path); }
  CommandResult run(const CommandSpec& spec) override;
  // Derives on the live machine (its range reads are not recorded) and records only the answer.
  std::optional<std::string> summary(const std::string& key, const std::vector<std::string>& what,
                                     const Derive& derive) override;
  std::map<std::string, std::string> environment() override;
  std::optional<std::string> env(const std::string& name) override;
  Identity identity() override;
  Kind kind() const override { return Kind::live; }
  std::vector<std::pair<std::string, UntrustedProgram>> untrusted_programs() override {
    return m_live.untrusted_programs();
  }

  void leave_out(const std::string& path, const std::string& why) override;

  // Writes manifest.json, stat.json and commands.json. Call once, after collection.
  void finish(const snapshot::Manifest& manifest);
  // The first writes into the snapshot folder that failed (a full disk), with why: a snapshot with any is
  // incomplete, and must not be shipped as if it were whole.
  std::vector<std::string> write_failures();
  const std::filesystem::path& dir() const { return m_dir; }
  // The paths not read because of ForeignLinkGuard, each with why ("PATH leads through a link ...").
  std::vector<std::pair<std::string, std::string>> skipped();
  // The files left out for a bound, each with why (leave_out): for the manifest's left_out.
  std::map<std::string, std::string> left_out_files();
  // The files recorded as excerpts (system/record_excerpts.hpp), each with its rule: the manifest's excerpts
  // (finish writes them too).
  std::map<std::string, std::string> excerpted_files();

private:
  // Mirrors `path` into fs/, creating every symlink met on the way as the machine has it; returns the
  // location the content belongs at (inside fs/), or nothing when the path is absent.
  std::optional<std::filesystem::path> mirror_path(const std::string& path, bool follow_final);
  void write_file(const std::filesystem::path& where, const std::string& content);
  void failed_write(std::string why);
  void record_environment();
  bool refused(const std::string& path, bool folder);
  void record_child(const std::string& dir_path, const std::filesystem::path& mirrored_dir,
                    const std::string& name);

  LiveView& m_live;
  std::filesystem::path m_dir;
  std::string m_tool;
  ForeignLinkGuard m_guard;
  std::vector<std::pair<std::string, std::string>> m_skipped;
  std::map<std::string, std::string> m_left_out;
  std::map<std::string, std::string> m_excerpts;
  std::mutex m_mutex;
  std::mutex m_failures_mutex; // apart from m_mutex: some writes happen while it is held, some not
  std::vector<std::string> m_write_failures;
  Json m_stats = Json::object();
  Json m_commands = Json::array();
  bool m_env_recorded = false, m_identity_recorded = false;
};

} // namespace gpudoctor
