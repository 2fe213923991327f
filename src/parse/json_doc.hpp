// Internal to src/parse: JSON documents for the parsers, through nlohmann-json but without util/json.hpp,
// whose std::expected the fuzz build's clang cannot compile (docs/fuzzing.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpudoctor::parse::detail {

// std::map-ordered: ordered_json finds keys linearly, quadratic over an object with many keys.
using JsonDoc = nlohmann::json;

// The document, or nothing when it is not JSON or nests deeper than 256 levels. Never throws.
std::optional<JsonDoc> json_document(std::string_view text);

// Member `key` of an object as a string; numbers are written out ("gpu": 0 -> "0"). Empty when absent,
// null, or of another type.
std::string json_text(const JsonDoc& j, const char* key);
// Member `key` as an integer: a JSON integer, or a string holding one ("45412", "0x1002" with base 0).
std::optional<long long> json_integer(const JsonDoc& j, const char* key, int base = 10);

} // namespace gpudoctor::parse::detail
