// Text from a machine or a snapshot, made safe for the place it is shown (docs/security.md, "Outputs").
// A customer's bundle may hold any bytes in any string: every output escapes them here, once, for its format.
//
// What is escaped, visibly: C0 controls (ESC, BEL, CR, BS, ...), DEL, C1 controls (U+0080-U+009F, CSI
// among them), the bidi controls that reorder what a reader sees (U+061C, U+200E, U+200F, U+202A-U+202E,
// U+2066-U+2069), the line and paragraph separators (U+2028, U+2029), the noncharacters U+FFFE and U+FFFF
// (XML 1.0 forbids them), and bytes that are not UTF-8. They
// become `\n`, `\r`, `\t`, `\x1b`, `\u009b`, `\u202e`, and `\xff` for a byte that is not UTF-8. A
// backslash is left as it is, so escaping twice changes nothing.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gpudoctor::escape {

// Splits `s` into runs a reader can take as they are and single hidden characters (or single bytes that
// are not UTF-8), and calls `visit(piece, hidden)` for each in order. The functions below are built on it;
// a format with escapes of its own (bash's $'...') uses it directly.
void split_hidden(std::string_view s, const std::function<void(std::string_view, bool)>& visit);

// For a terminal, one physical line: line feeds and tabs are escaped too. Also the plain one-line form
// (node-problem-detector messages, comments in a bash script).
std::string one_line(std::string_view s);

// For a terminal, keeping line feeds and tabs (texts of several lines).
std::string terminal(std::string_view s);

// HTML text and attribute values (either quote): `terminal`, then & < > " ' as character references.
std::string html(std::string_view s);

// XML 1.0 text and attribute values (JUnit): `terminal` (which leaves no character XML 1.0 forbids), then
// & < > " ' as character references, and line feed and tab as &#10; and &#9; (so attribute values keep them).
std::string xml(std::string_view s);

// A relative path as the path of a URL (a link from one page to another beside it): ASCII letters, digits
// and "-._~/" as they are, every other byte %XX. No scheme, query or fragment can come out of it.
std::string url_path(std::string_view path);

// A Prometheus label value (text exposition format, inside double quotes): `one_line`, then backslash and
// double quote escaped with a backslash. The exposition format reads the `one_line` text back.
std::string prometheus_label(std::string_view s);

// JSON text as a serializer wrote it (util/json), safe to print: the hidden characters a serializer may
// leave raw inside strings (DEL, C1 and bidi controls, line separators) become \uXXXX escapes, which every
// JSON reader decodes back to the same value. Line feeds, which only separate tokens there, stay.
std::string json_text(std::string_view json);

} // namespace gpudoctor::escape
