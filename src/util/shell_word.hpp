// A word of a bash command line, quoted so bash reads it back unchanged: for the scripts gpudoctor renders
// (fix/script_text.hpp) and for the commands its findings tell a person to run (engine/result.hpp's Action),
// whose words may come from a stranger's snapshot.
#pragma once

#include <string>
#include <string_view>

namespace gpudoctor {

// Letters, digits and ._-+:/=@%, : the characters that mean nothing to bash in a word.
bool shell_bare_ok(char c);

// A word as bash reads it back unchanged: bare when it is made of safe characters, else in single quotes;
// a word with a character util/escape's one_line would escape goes in $'...' with \xHH escapes, so a quoted
// word is always one line of plain text (a line of its own can never end a here-document). Throws
// std::invalid_argument on a NUL byte: bash cannot hold one.
std::string shell_quote(std::string_view word);

} // namespace gpudoctor
