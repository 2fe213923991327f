// What one configuration file of the table (system/config_files.hpp) assigns, read by its format: the one
// reading of "which variable does this line set" that the path collector and the fix inventory share.
#pragma once

#include "parse/parsers_system.hpp"
#include "system/shell_profiles.hpp"

namespace gpudoctor {

// A shell profile through parse::shell_profile; /etc/environment and NCCL's NAME=VALUE files through
// parse::etc_environment (nothing expanded there).
parse::ShellProfile profile_assignments(const ProfileFile& file);

} // namespace gpudoctor
