#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || detail::is_digit(c) || c == '_';
}

struct Assignment {
  std::string_view name;
  std::optional<std::string> value; // empty: None or not a string literal
};

// `__version__ = '2.6.0+cu124'`, `cuda: Optional[str] = '12.4'` (annotated, torch >= 2.0), `hip = None`.
std::optional<Assignment> assignment(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && ident_char(line[i]))
    ++i;
  if (i == 0) return std::nullopt;
  Assignment a{line.substr(0, i), std::nullopt};
  std::size_t eq = line.find('=', i);
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view between = detail::trim_view(line.substr(i, eq - i));
  if (!between.empty() && between.front() != ':') return std::nullopt;
  std::string_view v = detail::trim_view(line.substr(eq + 1));
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) {
    std::size_t close = v.find(v.front(), 1);
    if (close != std::string_view::npos) a.value = std::string(v.substr(1, close - 1));
  }
  return a;
}

} // namespace

std::optional<TorchVersionPy> torch_version_py(std::string_view text) {
  TorchVersionPy out;
  bool found = false;
  detail::for_each_line(text, [&](std::string_view line) {
    auto a = assignment(line);
    if (!a) return;
    if (a->name == "__version__" && a->value && !found) {
      out.version = *a->value;
      found = true;
    } else if (a->name == "cuda") {
      out.cuda = a->value;
    } else if (a->name == "hip") {
      out.hip = a->value;
    }
  });
  if (!found) return std::nullopt;
  // An empty string is as good as None.
  if (out.cuda && out.cuda->empty()) out.cuda.reset();
  if (out.hip && out.hip->empty()) out.hip.reset();
  return out;
}

} // namespace gpudoctor::parse
