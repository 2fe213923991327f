// Asking the user before an apply, an undo or a finish acts.
#pragma once

#include <string>

namespace gpudoctor::fix {

// Asks `question` on the terminal ("[y/N]"); false without a terminal.
bool confirm(const std::string& question);

// What a refusal to act without asking adds: " (not a terminal: pass --yes)" without a terminal, else "".
const char* yes_hint();

} // namespace gpudoctor::fix
