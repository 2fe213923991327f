// The machine's configuration surface: the one table of the files, user and system, that set what a GPU
// stack's programs see (shell profiles, pam_env, NCCL's, pip's, conda's, the container engines'). The
// collectors read the profiles it names, redaction knows their syntax from it, and the fix scripts get the
// files they clean from it (fix/render.cpp writes them into each script: fixes/lib.bash keeps no list).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

enum class ConfigFormat {
  shell,   // POSIX shell: bash's, zsh's profiles
  pam_env, // /etc/environment: NAME=value lines, nothing expanded (pam_env.conf(5))
  nccl,    // NCCL's NAME=VALUE lines, '#' comments
  ini,     // pip.conf; .condarc (YAML) too, which redaction reads line by line as key: value
  json,    // the container engines' daemon.json, config.json
};

// What reads the file.
enum class ConfigUse {
  profile, // a login shell's profile (or pam_env's): PATH, LD_LIBRARY_PATH and the stacks' variables
  nccl,    // NCCL's configuration files
  pip,     // pip's configuration files
  conda,
  docker_daemon, // the Docker daemon's configuration: its runtimes (NVIDIA's), what the containers get
  docker_cli,    // the Docker CLI's: redacted (registry credentials), never judged
  csh,           // csh's: redacted as shell lines, never judged or cleaned (no csh syntax is read)
};

struct ConfigFile {
  // In a home ("/.bashrc", relative to it) or system-wide ("/etc/profile"). A folder's files are named
  // with a suffix: "/etc/profile.d/*.sh".
  std::string_view path;
  bool in_home = false;
  ConfigUse use = ConfigUse::profile;
  ConfigFormat format = ConfigFormat::shell;
  // Edited by the fixes' profile steps (gd_clean_profiles): every profile, and NCCL's own files.
  bool cleaned = false;
  std::string_view source; // the document that says its program reads it
};

// Every row, grouped by use; within a use in the order it is read: for the profiles, the home's files
// first, then the system's; for NCCL, ~/.nccl.conf before /etc/nccl.conf; for pip, the system's before
// the user's (a later file wins).
std::span<const ConfigFile> config_files();

// The file rows of `use` as paths on the machine, in the table's order; a home's rows only when `home` is
// given. Folder rows are left out: their files are listed (shell_profile_paths).
std::vector<std::string> config_paths(ConfigUse use, const std::string& home);
// A home's row as a path in `home`.
std::string in_home(const std::string& home, const ConfigFile& row);

// The row a recorded path is (relative to the bundle's root, "home/alice/.bashrc", "etc/profile.d/x.sh"),
// by its system path or, for a home's file, by its name; nullopt when the table has none.
const ConfigFile* config_file_of(std::string_view rel);

// The folder row whose folder holds `rel` (a recorded path, as above), whatever the file's suffix.
const ConfigFile* config_folder_of(std::string_view rel);

// A folder row's folder and suffix ("/etc/profile.d", ".sh"); nullopt for a file row.
struct ConfigFolder {
  std::string_view folder, suffix;
};
std::optional<ConfigFolder> config_folder(const ConfigFile& row);

} // namespace gpudoctor
