#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

bool module_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || detail::is_digit(c) || c == '_' || c == '-';
}

bool valid_module_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!module_name_char(c)) return false;
  return true;
}

} // namespace

std::map<std::string, std::string> proc_modules(std::string_view text) {
  std::map<std::string, std::string> out;
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t pos = 0;
    std::string_view name = detail::next_token(line, pos);
    // `lsmod` prints the same first column under a "Module  Size  Used by" header.
    if (name == "Module" || !valid_module_name(name)) return;
    out.emplace(std::string(name), std::string());
  });
  return out;
}

} // namespace gpudoctor::parse
