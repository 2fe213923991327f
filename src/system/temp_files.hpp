// gpudoctor's temporary folders and files, in one registry (docs/security.md, "Processes").
//
// A temporary folder is named `gpudoctor-<kind>-<pid>-<start time>-<boot id>-XXXXXX` in the temporary folder
// (TMPDIR): the pid, the process's start time and the boot say which run made it, so a later run can prove
// the maker is dead (killed with SIGKILL, nothing could clean up) and remove it. Registered paths are removed
// when gpudoctor is interrupted (system/interrupt), and by their owner as usual.
#pragma once

#include <expected>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::temp {

// The folder the temporary folders go in: TMPDIR (util/temp_dir), and, run as root, only one that no other
// user can change (system/root_trust's rule for a folder root writes into: root-owned the whole way, a sticky
// /tmp included), since a user who may rename entries there can swap root's folder for a link to their own
// (docs/security.md, "Writing as root"). The error names TMPDIR and the reason.
std::expected<std::filesystem::path, std::string> base_folder();

// A registered temporary folder (0700), removed when this object goes, or on an interruption.
class Folder {
public:
  // `kind`: a word (letters) saying what it is for: "bundle", "snapshot".
  static std::expected<Folder, std::string> create(const std::string& kind);
  Folder(Folder&& other) noexcept;
  Folder& operator=(Folder&& other) noexcept;
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  ~Folder();
  const std::filesystem::path& path() const { return m_path; }

private:
  explicit Folder(std::filesystem::path p) : m_path(std::move(p)) {}
  std::filesystem::path m_path;
};

// Registers a file or folder to remove on an interruption (a half-written output, a compiler's output);
// unregister it when it is complete or gone.
void track(const std::filesystem::path& path);
void untrack(const std::filesystem::path& path);

// The interruption, first: from now on nothing is unregistered (a thread whose compiler was just killed must
// not take its half-built folder off the list) and no folder is created.
void freeze();
// Then: removes every registered path, so that no thread still running can write into it again (each is
// replaced by an empty placeholder file until `release_placeholders`, the last step before _exit).
void remove_all_registered();
void release_placeholders();

// Removes the temporary folders of runs of gpudoctor that are provably dead: named as above, owned by this
// user, and their pid is not running (or runs another process: another start time, or another boot). Returns
// what was removed.
std::vector<std::filesystem::path> remove_stale();

// For tests: whether a folder name of `kind`'s shape belongs to a dead run, given what is known about the
// process the name mentions (nullopt: there is none) and the boot id now.
bool is_stale_name(const std::string& name, const std::string& boot_id,
                   const std::function<std::optional<unsigned long long>(int)>& start_time_of);

} // namespace gpudoctor::temp
