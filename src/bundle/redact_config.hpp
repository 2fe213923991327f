// The recorded configuration files people keep secrets in, and the rules for each kind: shell profiles
// (every assignment of every shell), INI files (pip.conf, .repo) and JSON (daemon.json, any .json).
#pragma once

#include "bundle/redact_text.hpp"
#include "util/json.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

enum class ConfigKind { shell, ini, json };

// The kind of a recorded path (relative to fs/, no leading '/'), judged by its name wherever it is (a home
// outside /home, root's, a stow target has its own name but is reached through a link that has this one).
std::optional<ConfigKind> config_kind(std::string_view rel);

// The configuration rules, then credentials and shapes. Shell: NAME=value anywhere on a line (export,
// declare -x, typeset -x, "K=V", 'K=V', K=V cmd), csh `setenv NAME v` and `set NAME = v`, fish
// `set -gx NAME v`. INI: `name = value` and `name: value`.
std::string redact_config_text(std::string_view text, ConfigKind kind, TextRedactor& redactor);

// Values of secret-named keys replaced (a whole object under "auths" too), every other string scrubbed
// (an array of strings as an argv); object keys keep their names but lose secret shapes. The key "key"
// alone is no secret here: commands.json names its commands with it. Returns whether anything changed.
bool redact_json(Json& doc, TextRedactor& redactor);

} // namespace gpudoctor
