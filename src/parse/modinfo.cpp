// `modinfo MODULE`: "field:  value" lines (kmod's modinfo; a field may repeat, as alias and parm do).
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

std::map<std::string, std::string> modinfo(std::string_view text) {
  std::map<std::string, std::string> out;
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 32) return;
    std::string_view key = line.substr(0, colon);
    for (char c : key)
      if (!((c >= 'a' && c <= 'z') || c == '_')) return; // field names are lower-case words
    std::string_view value = detail::trim_view(line.substr(colon + 1));
    if (value.size() > 512) value = value.substr(0, 512);
    out.emplace(std::string(key), std::string(value)); // the first one of a repeated field
  });
  return out;
}

std::optional<AmdgpuRasCount> amdgpu_ras_count(std::string_view text) {
  AmdgpuRasCount c;
  bool seen = false;
  detail::for_each_line(text, [&](std::string_view line) {
    for (auto [key, sink] :
         {std::pair{std::string_view("ue"), &c.ue}, std::pair{std::string_view("ce"), &c.ce}}) {
      auto v = detail::value_after(line, key);
      if (!v) continue;
      std::size_t p = 0;
      if (auto n = text::to_int(detail::next_token(*v, p)); n && *n >= 0) {
        *sink = *n;
        seen = true;
      }
    }
  });
  if (!seen) return std::nullopt;
  return c;
}

} // namespace gpudoctor::parse
