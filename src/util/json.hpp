// The one adapter over nlohmann-json: parsing returns `expected` instead of throwing.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpudoctor {

using Json = nlohmann::ordered_json;

std::expected<Json, std::string> parse_json(std::string_view text);
// Dumps with 2-space indentation; invalid UTF-8 is replaced rather than thrown on, and no control or bidi
// character is left raw (escape::json_text): safe to print to a terminal.
std::string dump_json(const Json& j, int indent = 2);

// Typed getters that never throw: nullopt when absent or of another type.
std::optional<std::string> json_string(const Json& j, const char* key);
std::optional<long long> json_int(const Json& j, const char* key);
std::optional<bool> json_bool(const Json& j, const char* key);

} // namespace gpudoctor
