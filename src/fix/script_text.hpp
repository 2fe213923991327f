// Text from the facts in a rendered bash script (docs/security.md, "Scripts"). A value enters a script in
// exactly two ways, both here: as a comment (or a title the script prints), made one inert line, or as a
// word of code, quoted so bash reads it back unchanged. Nothing from a snapshot is ever pasted in raw,
// except {{!name}} parameters, which hold only characters that mean nothing to bash (params.hpp).
#pragma once

#include "util/shell_word.hpp"

#include <string>
#include <string_view>

namespace gpudoctor::fix {

// For a comment, a title or any line people read: one physical line, with line feeds, CRs, terminal
// escapes, C1 and bidi controls and bytes that are not UTF-8 shown escaped (util/escape's one_line).
std::string script_comment(std::string_view text);

// Words of code: shell_quote (util/shell_word.hpp).

// Whether a value may be put into a script unquoted ({{!name}}): letters, digits and ._-+:/=~@%,
std::string unsafe_for_raw(std::string_view word); // the first bad character, or "" when fine

// The first {{name}} (a quoted word) in recipe bash that does not stand where a word may: inside quotes,
// where its quotes would end the string, or in a here-document, where they mean nothing. "" when none.
std::string misplaced_placeholder(std::string_view bash);

// Whether recipe bash opens a here-document (`<<` or `<<-` outside quotes and comments; not a here-string).
bool opens_heredoc(std::string_view bash);

} // namespace gpudoctor::fix
