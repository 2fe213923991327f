#include "parse/json_doc.hpp"
#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

// A version that starts with a digit: "13.0.2", "11.8.20220929" (kept as written).
std::optional<std::string> version_or_empty(std::string_view v) {
  v = detail::trim_view(v);
  if (!detail::looks_like_version(v)) return std::nullopt;
  return std::string(v);
}

} // namespace

// version.json (CUDA 11.1+): {"cuda": {"name": "CUDA SDK", "version": "13.0.2"}, "cuda_cccl": {...}, ...}.
std::optional<std::string> cuda_version_json(std::string_view text) {
  auto j = detail::json_document(text);
  if (!j || !j->is_object()) return std::nullopt;
  auto it = j->find("cuda");
  if (it == j->end() || !it->is_object()) return std::nullopt;
  auto v = it->find("version");
  if (v == it->end() || !v->is_string()) return std::nullopt;
  return version_or_empty(v->get<std::string>());
}

// version.txt (CUDA <= 11.0): "CUDA Version 10.2.89".
std::optional<std::string> cuda_version_txt(std::string_view text) {
  std::optional<std::string> out;
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    if (!t.starts_with("CUDA Version ")) return true;
    out = version_or_empty(t.substr(13));
    return false;
  });
  return out;
}

// "Cuda compilation tools, release 12.1, V12.1.105" -> "12.1.105"; "release 12.1" alone -> "12.1".
std::optional<std::string> nvcc_version(std::string_view text) {
  std::optional<std::string> out;
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t at = line.find("release ");
    if (at == std::string_view::npos || line.find("compilation tools") == std::string_view::npos) return true;
    std::string_view rest = line.substr(at + 8);
    std::size_t comma = rest.find(',');
    out = version_or_empty(rest.substr(0, comma));
    if (comma != std::string_view::npos) {
      std::string_view tail = detail::trim_view(rest.substr(comma + 1));
      if (tail.starts_with('V'))
        if (auto full = version_or_empty(tail.substr(1, tail.find_first_of(" \t,") - 1))) out = full;
    }
    return !out;
  });
  return out;
}

} // namespace gpudoctor::parse
