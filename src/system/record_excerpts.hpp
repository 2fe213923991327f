// What a recording keeps of a file that holds a few lines of interest among many (docs/snapshot.md,
// "Excerpts"): dpkg's status without the descriptions and conffiles, a library header's #define lines. The
// excerpt is in the file's own format, so the parsers read it as they read the whole file; the manifest names
// each excerpted file with its rule. Every other file is recorded whole.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor::excerpts {

// The rule for a path read, if it has one: its name in the manifest ("dpkg-status-fields", "header-defines").
std::optional<std::string_view> rule_for(std::string_view path);

// The excerpt of `content` by the rule named `rule` (a name rule_for returned).
std::string apply(std::string_view rule, std::string_view content);

// The fields of dpkg's status that an excerpt keeps (every reader of the status file reads only these).
bool dpkg_field_kept(std::string_view field);

} // namespace gpudoctor::excerpts
