// Runs a program without a shell, with a time limit that kills its whole process group, and caps its output.
#pragma once

#include "system/system_view.hpp"

namespace gpudoctor {

struct ProcessLimits {
  std::size_t max_output_bytes = 4 * 1024 * 1024; // per stream; the rest is read and dropped
};

// Finds `name` on `path_var` (a PATH value); a name with a '/' is taken as is. Empty when not found.
std::string find_program(const std::string& name, const std::string& path_var);

// Runs `spec` with `env` as the complete environment. Never throws.
CommandResult run_process(const CommandSpec& spec, const std::map<std::string, std::string>& env,
                          const ProcessLimits& limits = {});

} // namespace gpudoctor
