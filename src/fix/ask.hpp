// Asking the user before an apply, an undo or a finish acts, and telling why it will not.
#pragma once

#include <string>

namespace gpudoctor::fix {

// Asks `question` on the terminal ("[y/N]"); false without a terminal.
bool confirm(const std::string& question);

// Prints "gpudoctor: MESSAGE" on stderr, its lines kept (the recovery commands end it) and anything else a
// terminal would act on escaped; a line feed is added when it has none.
void print_refusal(const std::string& message);

// What a refusal to act without asking adds: " (not a terminal: pass --yes)" without a terminal, else "".
const char* yes_hint();

} // namespace gpudoctor::fix
