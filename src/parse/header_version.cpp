#include "parse/parsers.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <array>

namespace gpudoctor::parse {

namespace {

// "#define CUDNN_MAJOR 9" (also "#  define", and values in parentheses) -> 9.
std::optional<long long> define_value(std::string_view text, std::string_view macro) {
  std::optional<long long> out;
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    if (!t.starts_with('#')) return true;
    std::size_t pos = 1;
    if (detail::next_token(t, pos) != "define" || detail::next_token(t, pos) != macro) return true;
    std::string_view v = detail::next_token(t, pos);
    while (v.size() >= 2 && v.front() == '(' && v.back() == ')')
      v = v.substr(1, v.size() - 2);
    auto n = text::to_int(v);
    if (n && *n >= 0 && *n < 100000) out = n;
    return !out;
  });
  return out;
}

// MAJOR.MINOR.PATCH from three macros; MAJOR and MINOR are required.
std::optional<std::string> dotted(std::string_view text, const std::array<std::string_view, 3>& macros) {
  auto major = define_value(text, macros[0]);
  auto minor = define_value(text, macros[1]);
  if (!major || !minor) return std::nullopt;
  std::string out = std::to_string(*major) + '.' + std::to_string(*minor);
  if (auto patch = define_value(text, macros[2])) out += '.' + std::to_string(*patch);
  return out;
}

} // namespace

// cudnn_version.h (cuDNN 8+) or cudnn.h (cuDNN <= 7): CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL.
std::optional<std::string> cudnn_header_version(std::string_view text) {
  return dotted(text, {"CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"});
}

// nccl.h and rccl.h: NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH.
std::optional<std::string> nccl_header_version(std::string_view text) {
  return dotted(text, {"NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"});
}

} // namespace gpudoctor::parse
