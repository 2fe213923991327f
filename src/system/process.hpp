// Runs a program without a shell, with a time limit; caps its output; kills what it leaves behind.
#pragma once

#include "system/system_view.hpp"

namespace gpudoctor {

struct ProcessLimits {
  std::size_t max_output_bytes = 4 * 1024 * 1024; // per stream; the rest is read and dropped
  // After the program exits, how long a process it started may still hold its output before it is killed.
  std::chrono::milliseconds output_linger{250};
  // After SIGKILL, how long to wait for the processes to end; what is still there is reported as unkillable.
  std::chrono::milliseconds kill_wait{3000};
};

// A regular file this process may execute (stat follows links).
bool is_executable_file(const std::string& path);

// Finds `name` on `path_var` (a PATH value); a name with a '/' is taken as is. Empty when not found. Not the
// trust rule: as root, run_process and run_foreground choose with system/root_exec's choose_program.
std::string find_program(const std::string& name, const std::string& path_var);

// Runs `spec` with `env` as the complete environment (plus the run's tag, system/process_tree). Never throws.
// As root (system/root_exec.hpp): the program is one root can trust, found on env's PATH past those it cannot
// (CommandResult::untrusted says which; none left: not found), or, for `as_owner_when_untrusted`, a user's
// interpreter run as that user; the child gets root_child_environment(env).
CommandResult run_process(const CommandSpec& spec, const std::map<std::string, std::string>& env,
                          const ProcessLimits& limits = {});

// Runs argv (looked up on PATH) in the foreground: gpudoctor's terminal, environment and process group, no
// time limit (an --apply step, which may ask for a password). Its exit status, 128+N for signal N, 127 when
// it cannot start. An interruption is forwarded to it (system/lifecycle). As root, the same rule as
// run_process: argv[0] must be a program root can trust (what was skipped is said on stderr), and the child
// gets root_child_environment of gpudoctor's environment.
// to_stderr: the child's stdout goes to gpudoctor's stderr (a driver reads gpudoctor's events on stdout).
enum class ChildOutput { inherit, to_stderr };
int run_foreground(const std::vector<std::string>& argv, ChildOutput output = ChildOutput::inherit);

} // namespace gpudoctor
