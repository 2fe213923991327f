// The shell profiles a login reads (bash(1), "INVOCATION"; zsh's own; pam_env's /etc/environment), read
// within the bounds of system/input_limits.hpp: what gpudoctor learns PATH, LD_LIBRARY_PATH and the stacks'
// variables from, besides the environment it runs in.
#pragma once

#include "system/config_files.hpp"
#include "system/system_view.hpp"

#include <string>
#include <vector>

namespace gpudoctor {

struct ProfilePath {
  std::string path;
  ConfigFormat format = ConfigFormat::shell; // shell, or pam_env for /etc/environment
};
// The profiles of the configuration table (system/config_files.hpp) in the order they are read: the user's
// own files in `home` first (none when empty), then the system's (/etc/profile, /etc/bash.bashrc,
// /etc/profile.d/*.sh, zsh's, /etc/environment). `listed_profile_d` is set to how many .sh files
// /etc/profile.d lists; at most k_max_profile_files of them are named.
std::vector<ProfilePath> shell_profile_paths(SystemView& view, const std::string& home,
                                             std::size_t* listed_profile_d = nullptr);

struct ProfileFile {
  std::string path;
  std::string content;
  ConfigFormat format = ConfigFormat::shell;
};

struct ShellProfiles {
  std::vector<ProfileFile> files;    // those that exist and were read, in reading order
  std::vector<std::string> not_read; // each left out for a bound, with why (for a note and the skips)
};

// The profiles of shell_profile_paths, each read whole when it and the total so far are within the bounds.
ShellProfiles read_shell_profiles(SystemView& view, const std::string& home);

} // namespace gpudoctor
