// The JSON files of a snapshot (shared/spec/snapshot-v1.md): written by the recorder, read back by the replay
// from their text, within the limits of docs/security.md. No <expected> in this header's graph: the readers
// are fuzzed, and the fuzz build's clang 14 cannot compile libstdc++'s (docs/fuzzing.md).
#pragma once

#include "system/system_view.hpp"
#include "util/json_value.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::snapshot {

inline constexpr const char* k_format = "gpudoctor-snapshot";
inline constexpr int k_version = 1;
// A file git can keep in an otherwise empty folder of a snapshot checked into a repository (a listed folder
// is often empty: site-packages/*.dist-info). Replay leaves it out of every listing (docs/snapshot.md).
inline constexpr const char* k_keep_file = ".gpudoctor-keep";

// What a snapshot may declare; the reason for each number is in docs/security.md ("Limits").
inline constexpr std::uint64_t k_max_manifest_bytes = 1 << 20;
inline constexpr std::uint64_t k_max_identity_bytes = 4 << 20;
inline constexpr std::uint64_t k_max_env_bytes = 16 << 20;
inline constexpr std::uint64_t k_max_stat_bytes = 16 << 20;
inline constexpr std::uint64_t k_max_commands_bytes = 16 << 20;
inline constexpr std::size_t k_max_groups = 65536; // NGROUPS_MAX
inline constexpr std::size_t k_max_env_entries = 100000;
inline constexpr std::size_t k_max_stat_entries = 100000;
inline constexpr std::size_t k_max_commands = 10000;
// Physical GPU-class PCI functions below fs/sys/bus/pci/devices (virtual functions are not counted).
inline constexpr std::size_t k_max_display_functions = 1024;
// A command's recorded stdout or stderr: what run_process keeps of a stream (util/process.hpp).
inline constexpr std::uint64_t k_max_command_output_bytes = 4 << 20;

struct Manifest {
  std::string created; // ISO 8601 UTC
  std::string tool;
  std::string origin = "live"; // live | fixture
  std::vector<std::string> redacted;
  std::string note;
  // Files of the machine gpudoctor left out for a bound (system/input_limits.hpp), each with why: the replay
  // says what the live run said instead of judging as if they were absent (docs/snapshot.md).
  std::map<std::string, std::string> left_out;
  // Files recorded as an excerpt in their own format (system/record_excerpts.hpp), each with its rule: the
  // parsers read them as the whole file; a reader of fs/ learns that lines were dropped (docs/snapshot.md).
  std::map<std::string, std::string> excerpts;
};

// One entry of commands.json; the output files are named relative to the snapshot root (not read here).
struct RecordedCommand {
  CommandResult result; // without out and err
  std::string out_file, err_file;
};

// What one file says, or why it cannot be used (`error`, naming the file, non-empty).
template <class T> struct FileRead {
  T value{};
  std::string error;
  bool ok() const { return error.empty(); }
};

Json manifest_to_json(const Manifest& m);
Json stat_to_json(const FileStat& st);
Json identity_to_json(const Identity& id);
// One entry of commands.json; output file names are relative to the snapshot root.
Json command_to_json(const CommandResult& r, const std::string& out_file, const std::string& err_file);

// Each checks its file's limits, format and types; the error says what is wrong in words a user can act on.
FileRead<Manifest> read_manifest(std::string_view text);
FileRead<std::map<std::string, std::string>> read_env(std::string_view text);
FileRead<Identity> read_identity(std::string_view text);
FileRead<std::map<std::string, FileStat>> read_stats(std::string_view text);
FileRead<std::vector<RecordedCommand>> read_commands(std::string_view text);

// The JSON forms alone (the readers above use them; redaction reads identity.json with the first).
Identity identity_from_json(const Json& j);
std::optional<FileStat> stat_from_json(const Json& j, std::string& error);
std::optional<RecordedCommand> command_from_json(const Json& j, std::string& error);

} // namespace gpudoctor::snapshot
