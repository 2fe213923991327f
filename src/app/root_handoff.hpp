// A user's apply, resume, finish or undo of what needs root hands the whole command to root: gpudoctor runs
// itself again through sudo, `sudo -- /abs/path/of/gpudoctor ARGS` (docs/fixes.md, "Apply, resume, undo").
// A sudo rule that allows only gpudoctor is then enough, root writes every record itself, and root never
// runs a file the user can change (0.1.0 ran `sudo bash SCRIPT` per step, a script in the user's folder).
// What root would not see of the user's session is passed as options: the Python environments in use
// (VIRTUAL_ENV, CONDA_PREFIX, a python3 on PATH outside the system's folders) as --python; the user reaches
// root as SUDO_USER, which sudo itself sets (the user the groups fix adds).
#pragma once

#include "util/diagnostics.hpp"

#include <string>
#include <vector>

namespace gpudoctor {

// main() keeps the command line, so that a handoff repeats it exactly.
void remember_arguments(int argc, char** argv);
// The arguments gpudoctor was given (without argv[0]).
const std::vector<std::string>& given_arguments();
// "gpudoctor ARGS", quoted as a shell would need them, for messages.
std::string given_command();

// The --python options root needs to see this session's environments, leaving out those given already.
std::vector<std::string> session_python_options(const std::vector<std::string>& given);

// Runs gpudoctor as root through sudo with `args` and returns its exit status. Without sudo on PATH, fails
// (exit 2) with what to run as root instead. `why`: what needs root ("this migration").
Outcome run_as_root(const std::vector<std::string>& args, const std::string& why);

// After a user's apply ran as root: the user's record points to root's (fix::note_root_apply), so that the
// user's `gpudoctor undo` asks root; a record that cannot be written is a warning.
void note_root_apply(const std::string& what);

} // namespace gpudoctor
