// A recorded machine: answers every read from a snapshot folder and never touches the host.
#pragma once

#include "system/snapshot.hpp"
#include "system/system_view.hpp"

#include <expected>
#include <filesystem>
#include <memory>

namespace gpudoctor {

class ReplayView : public SystemView {
public:
  // Loads and validates manifest.json, env.json, identity.json, stat.json and commands.json of `root`.
  static std::expected<std::unique_ptr<ReplayView>, std::string> open(const std::filesystem::path& root);

  std::optional<std::string> read_file(const std::string& path) override;
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override;
  std::optional<std::string> read_link(const std::string& path) override;
  std::optional<FileStat> stat(const std::string& path) override;
  std::optional<std::uint64_t> file_size(const std::string& path) override;
  CommandResult run(const CommandSpec& spec) override;
  // The recorded answer of `key`; never derives (replay reads nothing outside the snapshot).
  std::optional<std::string> summary(const std::string& key, const std::vector<std::string>& what,
                                     const Derive& derive) override;
  std::map<std::string, std::string> environment() override { return m_env; }
  std::optional<std::string> env(const std::string& name) override {
    auto it = m_env.find(name);
    if (it == m_env.end()) return std::nullopt;
    return it->second;
  }
  Identity identity() override { return m_identity; }
  Kind kind() const override { return Kind::replay; }
  std::vector<std::pair<std::string, UntrustedProgram>> untrusted_programs() override { return m_untrusted; }

  std::optional<std::string> left_out(const std::string& path) override {
    auto it = m_manifest.left_out.find(path);
    if (it == m_manifest.left_out.end()) return std::nullopt;
    return it->second;
  }

  const snapshot::Manifest& manifest() const { return m_manifest; }

private:
  ReplayView() = default;
  // Where `path` of the machine lies inside fs/, never outside it; empty when absent.
  std::optional<std::filesystem::path> in_fs(const std::string& path, bool follow_final) const;

  std::filesystem::path m_root;
  bool m_has_fs = false;
  snapshot::Manifest m_manifest;
  std::map<std::string, std::string> m_env;
  Identity m_identity;
  std::map<std::string, FileStat> m_stats;
  // fs/ of a snapshot does not change while it is replayed (a bundle's is gpudoctor's private folder).
  mutable snapshot::LookupCache m_lookups;
  std::map<std::string, CommandResult> m_commands;
  std::vector<std::pair<std::string, UntrustedProgram>> m_untrusted; // of every recorded command, in order
};

} // namespace gpudoctor
