// /proc/<pid>/limits (proc(5)): a header, then "Limit  Soft Limit  Hard Limit  Units" rows whose name has
// blanks.
#include "parse/parsers_layer.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

std::optional<Limit> memlock_limit(std::string_view text) {
  std::optional<Limit> out;
  detail::for_each_line(text, [&](std::string_view line) {
    constexpr std::string_view name = "Max locked memory";
    if (line.substr(0, name.size()) != name) return true;
    std::size_t pos = name.size();
    std::string_view soft = detail::next_token(line, pos), hard = detail::next_token(line, pos),
                     unit = detail::next_token(line, pos);
    auto valid = [](std::string_view v) {
      if (v == "unlimited") return true;
      if (v.empty() || v.size() > 20) return false;
      for (char c : v)
        if (!detail::is_digit(c)) return false;
      return true;
    };
    if (!valid(soft) || !valid(hard)) return true;
    out = Limit{std::string(soft), std::string(hard), std::string(unit)};
    return false;
  });
  return out;
}

} // namespace gpudoctor::parse
