// The JSON value type and its never-throwing helpers, without <expected>: the fuzz build's clang 14 cannot
// compile libstdc++'s (docs/fuzzing.md), and the snapshot reader is fuzzed. util/json.hpp adds parse_json.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpudoctor {

// Objects keep their keys in document order (the report's JSON is written in a stable, readable order).
using Json = nlohmann::ordered_json;

// What one untrusted document may hold (docs/security.md, "Limits"). Nesting is bounded because copying,
// comparing and writing a document recurse; values, because each costs about 50-100 bytes once parsed.
struct JsonLimits {
  std::size_t max_depth = 256;
  std::size_t max_values = 1'000'000;
};

// Parses `text` into `out` in O(n log n) (nlohmann's own parser finds each key of an ordered object by a
// linear search: quadratic in the number of keys). A repeated key keeps its first place and its last value,
// as nlohmann does. On failure returns false and says why in `error`. Never throws.
bool parse_json_into(std::string_view text, Json& out, std::string& error, const JsonLimits& limits = {});

// Dumps with 2-space indentation; invalid UTF-8 is replaced rather than thrown on, and no control or bidi
// character is left raw (escape::json_text): safe to print to a terminal.
std::string dump_json(const Json& j, int indent = 2);
// On one line, every text exactly as it is: nullopt when one is not valid UTF-8 (and so could not come back
// as it was), for records read back by gpudoctor itself.
std::optional<std::string> dump_json_exact(const Json& j);

// Typed getters that never throw: nullopt when absent or of another type.
std::optional<std::string> json_string(const Json& j, const char* key);
std::optional<long long> json_int(const Json& j, const char* key);
std::optional<bool> json_bool(const Json& j, const char* key);

} // namespace gpudoctor
