#include "parse/json_doc.hpp"

#include "util/text.hpp"

namespace gpudoctor::parse::detail {

std::optional<JsonDoc> json_document(std::string_view text) {
  // nlohmann's parser keeps its own stack, but destroying a deep document recurses: bound the nesting first.
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > 256) return std::nullopt;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    JsonDoc j = JsonDoc::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return std::nullopt;
    return j;
  } catch (...) { // allocation failure, or anything nlohmann throws despite allow_exceptions=false
    return std::nullopt;
  }
}

std::string json_text(const JsonDoc& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  if (it == j.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  if (it->is_number_unsigned()) return std::to_string(it->get<unsigned long long>());
  return {};
}

std::optional<long long> json_integer(const JsonDoc& j, const char* key, int base) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<long long>();
  if (it->is_string()) return text::to_int(text::trim(it->get<std::string>()), base);
  return std::nullopt;
}

} // namespace gpudoctor::parse::detail
