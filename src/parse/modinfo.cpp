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

VramBadPages amdgpu_bad_pages(std::string_view text) {
  VramBadPages out;
  std::vector<std::string> retired;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    // "<pfn> : <size> : <flag>": two hex fields, then one letter.
    std::size_t last = line.rfind(':');
    if (last == std::string_view::npos || !line.starts_with("0x")) return;
    std::string_view flag = detail::trim_view(line.substr(last + 1));
    std::string kept(line.substr(0, 64));
    if (flag == "R") {
      ++out.reserved;
      if (retired.size() < 8) retired.push_back(std::move(kept));
      return;
    }
    if (flag == "P")
      ++out.pending;
    else if (flag == "F")
      ++out.failed;
    else
      return;
    if (out.lines.size() < 8) out.lines.push_back(std::move(kept));
  });
  for (auto& l : retired)
    if (out.lines.size() < 8) out.lines.push_back(std::move(l));
  return out;
}

} // namespace gpudoctor::parse
