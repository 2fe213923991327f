#include "util/json.hpp"

#include "util/escape.hpp"

namespace gpudoctor {

std::expected<Json, std::string> parse_json(std::string_view text) {
  try {
    // Depth is bounded by nlohmann's recursive parser; reject absurd nesting before it can blow the stack.
    int depth = 0, max_depth = 0;
    for (char c : text) {
      if (c == '[' || c == '{')
        max_depth = std::max(max_depth, ++depth);
      else if (c == ']' || c == '}')
        --depth;
    }
    if (max_depth > 256) return std::unexpected("JSON nested deeper than 256 levels");
    return Json::parse(text.begin(), text.end());
  } catch (const std::exception& e) {
    return std::unexpected(std::string(e.what()));
  }
}

std::string dump_json(const Json& j, int indent) {
  // nlohmann escapes C0 controls but leaves DEL, C1 and bidi controls raw: JSON is printed to terminals too.
  return escape::json_text(j.dump(indent, ' ', false, nlohmann::detail::error_handler_t::replace));
}

std::optional<std::string> json_string(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<long long> json_int(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}

std::optional<bool> json_bool(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

} // namespace gpudoctor
