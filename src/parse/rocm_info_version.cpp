#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

// <rocm>/.info/version: "7.0.1", or with a build number "6.2.0-115" -> "6.2.0".
std::optional<std::string> rocm_info_version(std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  first = detail::trim_view(first);
  first = first.substr(0, first.find('-'));
  if (!detail::looks_like_version(first)) return std::nullopt;
  return std::string(first);
}

} // namespace gpudoctor::parse
