// Answers of commands remembered between runs (CommandSpec::cache): what a python3 says of itself (its
// version, sys.path, site folders) costs 20-90 ms a start and changes only when the interpreter, its
// pyvenv.cfg, the Python variables, the caller or its site folders do, so it is asked once and read back
// while they stay as they were (docs/architecture.md, "Interpreter answers remembered").
// Where: root's in /var/cache/gpudoctor/interpreters (never a user's cache, whatever HOME says); another
// account's in $XDG_CACHE_HOME/gpudoctor/interpreters or ~/.cache/gpudoctor/interpreters. The folder is the
// account's own, 0700 (system/own_folder); an entry is read only when that account wrote it. An entry that
// cannot be read, or whose key differs, is a miss: the command runs.
#pragma once

#include "system/system_view.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace gpudoctor {

// The folder the caller's answers are kept in; nullopt when it has none (GPUDOCTOR_NO_CACHE set, no home).
std::optional<std::string> run_cache_folder(const std::map<std::string, std::string>& env);

// What an answer depends on, as one text: the format, the argv, the program as it would be found (as root:
// the trust rule's choice, system/root_exec), the real and effective ids, the rule's files and variables.
std::string run_cache_key(const CommandSpec& spec, const std::map<std::string, std::string>& env);

class RunCache {
public:
  explicit RunCache(std::string folder) : m_folder(std::move(folder)) {}
  ~RunCache();
  RunCache(const RunCache&) = delete;
  RunCache& operator=(const RunCache&) = delete;

  // The remembered result for `key` (CommandResult::cached set), when its watched folders are unchanged.
  std::optional<CommandResult> find(const CommandSpec& spec, const std::string& key);
  // Remembers a successful result; past k_max_entries the oldest entries go. Failures to write are ignored:
  // the next run asks again.
  void keep(const CommandSpec& spec, const std::string& key, const CommandResult& result);

  static constexpr std::size_t k_max_entries = 256;
  static constexpr std::size_t k_max_entry_bytes = std::size_t{1} << 20;

private:
  int folder_fd(); // opened (made) on first use; -1 when it cannot be used
  std::string m_folder;
  std::mutex m_mutex;
  int m_fd = -2; // -2: not opened yet
};

} // namespace gpudoctor
