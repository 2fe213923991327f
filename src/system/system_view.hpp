// SystemView: the one seam between gpudoctor and the machine it inspects.
// Every file read, folder listing, link, stat, command and environment lookup of a collector goes through it,
// so a live run, a recording run (bundle) and a replay of a snapshot are the same code path.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// The most read_file gives of one file: the live view stops reading there (sysfs and procfs sizes are not
// to be trusted), and a replayed file larger than that cannot have been recorded (docs/security.md).
inline constexpr std::size_t k_max_read_bytes = 64 * 1024 * 1024;

enum class FileType { file, dir, link, chr, block, fifo, socket, other };

std::string file_type_name(FileType type);
std::optional<FileType> file_type_from_name(const std::string& name);

// Metadata of a path, as `lstat` would give it (device nodes, permissions).
struct FileStat {
  FileType type = FileType::other;
  unsigned mode = 0; // permission bits, e.g. 0660
  unsigned uid = 0;
  unsigned gid = 0;
  std::string group; // name of gid, empty when unknown
};

// Who runs gpudoctor: decides device-node access.
struct Identity {
  std::string user;
  unsigned uid = 0;
  unsigned gid = 0;
  std::vector<std::string> groups; // names of all groups the process has
  std::vector<unsigned> gids;
  std::string home;
  std::string hostname;
};

// A program root did not run as itself (docs/security.md, "Executing as root"): another user can change it.
struct UntrustedProgram {
  std::string path;    // the program as found (on PATH, or as named)
  std::string why;     // "owned by alice", "/home/alice/bin is writable by others", ...
  std::string ran_as;  // the account it ran as instead (a user's interpreter); empty: it was not run at all
  std::string instead; // not run: the copy root can trust that ran in its place (further on PATH), if any
};

// Whether the variable `name` is one of `patterns`: names, or prefixes ending in '*' ("PYTHON*"), the form of
// CommandSpec::unset_env and RunCacheRule::key_env.
inline bool variable_matches(const std::string& name, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns)
    if (p == name ||
        (!p.empty() && p.back() == '*' && name.compare(0, p.size() - 1, p, 0, p.size() - 1) == 0))
      return true;
  return false;
}

// When a command's answer may be remembered (system/run_cache.hpp: an interpreter's account of itself).
// The answer is used again only while the program found, the caller's ids, the argv, these files and
// variables, and the folders the answer named are as they were.
struct RunCacheRule {
  std::vector<std::string> key_files; // each one's (device, inode, size, mtime, ctime), or its absence
  // Names keyed the same way in the folder of the program found and the folder above it (a venv's
  // pyvenv.cfg): beside the program that runs, whichever PATH or the trust rule picks.
  std::vector<std::string> beside_program;
  std::vector<std::string> key_env; // names, or prefixes ending in '*' ("PYTHON*")
  // The folders the answer names (an interpreter's site folders), from its standard output: their stat is
  // kept with it and compared when it is read back.
  std::function<std::vector<std::string>(const std::string& out)> watched;
};

// What to run. `key` names the command in snapshots (spec: snapshot-v1 "Keys of format 1");
// replay looks commands up by key, never by argv.
struct CommandSpec {
  std::string key;
  std::vector<std::string> argv;
  std::chrono::milliseconds timeout{5000};
  std::map<std::string, std::string> extra_env; // added to the inherited environment
  std::vector<std::string> unset_env;           // names (or prefixes ending in '*') removed from it
  bool keep_tail = false; // over the output cap, keep the last bytes (a log's newest lines), not the first
  // A user's interpreter (a venv's, a conda env's, pyenv's, --python): as root, when it fails the trust rule
  // it is run as the one account that can change it, instead of being skipped (system/root_exec.hpp).
  bool as_owner_when_untrusted = false;
  // Set: a live view may answer from the caller's cache of earlier runs (system/run_cache.hpp).
  std::shared_ptr<const RunCacheRule> cache;
};

struct CommandResult {
  std::string key;
  std::vector<std::string> argv;
  bool found = false;           // false: program not on PATH (replayed as exit 127)
  std::optional<int> exit_code; // empty when killed by a signal or timed out
  bool timed_out = false;
  bool unkillable = false;   // it (or a process it started) outlived SIGKILL: left running, not waited on
  std::optional<int> signal; // the signal that ended it (a crash), when not killed at the time limit
  long timeout_ms = 0;       // the time limit it ran under
  long duration_ms = 0;
  std::string out;
  std::string err;
  bool truncated = false; // output was longer than the cap
  std::string error;      // failure to start, other than "not found"
  // As root: the programs met on the way that another user can change (skipped; the search went on), or the
  // interpreter that ran as its owner. Recorded in commands.json, so a replay says the same.
  std::vector<UntrustedProgram> untrusted;
  bool cached = false; // the answer of an earlier run, remembered (CommandSpec::cache); nothing ran now

  bool ok() const { return found && !timed_out && exit_code && *exit_code == 0; }
};

class SystemView {
public:
  virtual ~SystemView() = default;

  // Content of a file, or nullopt when it does not exist or cannot be read.
  virtual std::optional<std::string> read_file(const std::string& path) = 0;
  // Names of the children of a folder (sorted), or nullopt when it is not a readable folder.
  virtual std::optional<std::vector<std::string>> list_dir(const std::string& path) = 0;
  // Target of a symbolic link as stored, or nullopt when `path` is not a link.
  virtual std::optional<std::string> read_link(const std::string& path) = 0;
  // Metadata of `path` following links, or nullopt when it does not exist.
  virtual std::optional<FileStat> stat(const std::string& path) = 0;
  // Runs a command (never through a shell) with a time limit; thread-safe.
  virtual CommandResult run(const CommandSpec& spec) = 0;
  virtual std::map<std::string, std::string> environment() = 0;
  virtual Identity identity() = 0;
  // Whether this view asks the machine (live, also while recording) or answers from a recording (a snapshot,
  // a test's machine): then nothing beyond it may be asked (no network probing, no probe programs started).
  enum class Kind { live, replay };
  virtual Kind kind() const = 0;
  bool is_replay() const { return kind() == Kind::replay; }

  // Up to `length` bytes of a regular file from `offset` (the headers of files too large to read whole, such
  // as shared libraries); nullopt when unreadable. Never recorded: a replay has no such bytes.
  virtual std::optional<std::string> read_range(const std::string&, std::uint64_t, std::size_t) {
    return std::nullopt;
  }
  // The size of a regular file (links followed) without reading it; nullopt when it is not one, or when the
  // view cannot tell (read it, then look). Never recorded: a recording holds what was read.
  virtual std::optional<std::uint64_t> file_size(const std::string&) { return std::nullopt; }
  // A collector left `path` out for a bound, saying `why` (system/input_limits.hpp): a recording drops what
  // it holds of the file and writes the reason down instead; a replay of that recording answers left_out.
  virtual void leave_out(const std::string& path, const std::string& why) {
    (void)path;
    (void)why;
  }
  // Why the recorded machine's `path` was left out, when it was (a replay); nullopt otherwise.
  virtual std::optional<std::string> left_out(const std::string& path) {
    (void)path;
    return std::nullopt;
  }
  // A summary derived from files that must not be recorded whole (snapshot key `elf-needed@<path>`: the
  // DT_NEEDED names of a library). Live, `derive` reads what it needs through this view; a recording keeps
  // only the answer, under `key` in commands.json (`what` as its argv); a replay answers from that record.
  using Derive = std::function<std::optional<std::string>(SystemView&)>;
  virtual std::optional<std::string> summary(const std::string& key, const std::vector<std::string>& what,
                                             const Derive& derive) {
    (void)key;
    (void)what;
    return derive(*this);
  }

  // One variable; views that hold the environment answer without copying it (a snapshot may hold 100,000).
  virtual std::optional<std::string> env(const std::string& name) {
    auto all = environment();
    auto it = all.find(name);
    if (it == all.end()) return std::nullopt;
    return it->second;
  }
  bool exists(const std::string& path) { return stat(path).has_value(); }

  // Every program this view did not run as root so far (CommandResult::untrusted of each run, the command's
  // key first), each path once. Live: what happened; replay: what the snapshot's commands recorded.
  virtual std::vector<std::pair<std::string, UntrustedProgram>> untrusted_programs() { return {}; }
};

} // namespace gpudoctor
