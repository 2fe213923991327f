// What the applier keeps between runs (fix/apply.cpp, fix/undo.cpp): the state folder, the state file of the
// last apply (last-apply.json, migrate.json), and asking the user.
#pragma once

#include "util/json.hpp"

#include <string>

namespace gpudoctor::fix {

// $XDG_STATE_HOME, or ~/.local/state.
std::string user_state_home();
// A file's content, empty when it cannot be read.
std::string read_text(const std::string& path);
// Whether sudo is on PATH (the steps of a non-root apply, and its undo, run through it).
bool have_sudo();
// Asks on the terminal; false without one.
bool confirm(const std::string& question);

// A state file: its JSON and where it is saved (atomically, 0600).
struct Record {
  Json doc;
  std::string path;
  bool save() const;
};

} // namespace gpudoctor::fix
