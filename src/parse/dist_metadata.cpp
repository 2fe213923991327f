// Requires-Dist of a Python distribution's METADATA (core metadata, RFC 822 style headers; PEP 508 specs):
// "Requires-Dist: torch==2.5.1", "Requires-Dist: nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\"".
#include "parse/parsers_layer.hpp"
#include "parse/scan.hpp"

#include <cctype>

namespace gpudoctor::parse {

namespace {

bool metadata_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

std::string normalise(std::string_view name) {
  std::string out;
  for (char c : name)
    out += (c == '_' || c == '.') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

} // namespace

std::vector<Requirement> requires_dist(std::string_view metadata) {
  std::vector<Requirement> out;
  detail::for_each_line(metadata, [&](std::string_view line) {
    if (line.empty()) return false; // the end of the headers: the description follows
    constexpr std::string_view key = "Requires-Dist:";
    if (line.substr(0, key.size()) != key || out.size() >= 1024) return true;
    std::string_view v = detail::trim_view(line.substr(key.size()));
    std::string_view marker;
    if (auto semi = v.find(';'); semi != std::string_view::npos) {
      marker = detail::trim_view(v.substr(semi + 1));
      v = detail::trim_view(v.substr(0, semi));
    }
    std::size_t i = 0;
    while (i < v.size() && metadata_name_char(v[i]))
      ++i;
    if (i == 0) return true;
    Requirement r;
    r.name = normalise(v.substr(0, i));
    std::string_view rest = detail::trim_view(v.substr(i));
    if (!rest.empty() && rest.front() == '[') { // extras: "torch[opt-einsum]"
      auto close = rest.find(']');
      rest = close == std::string_view::npos ? std::string_view() : detail::trim_view(rest.substr(close + 1));
    }
    if (!rest.empty() && rest.front() == '(' && rest.back() == ')') rest = rest.substr(1, rest.size() - 2);
    std::string spec;
    for (char c : rest)
      if (!detail::is_space(c)) spec += c;
    r.spec = spec;
    r.marker = std::string(marker);
    out.push_back(std::move(r));
    return true;
  });
  return out;
}

} // namespace gpudoctor::parse
