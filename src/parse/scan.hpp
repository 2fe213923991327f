// Internal to src/parse: allocation-free line and token scanning over string_views.
#pragma once

#include "util/text.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace gpudoctor::parse::detail {

inline bool is_space(char c) {
  return text::is_blank(c);
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline std::string_view trim_view(std::string_view s) {
  return text::trim_view(s);
}

// Calls fn(line) for each line, without its '\n' or a trailing '\r'. fn may return false to stop early.
template <class F> void for_each_line(std::string_view text, F&& fn) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if constexpr (std::is_same_v<decltype(fn(line)), bool>) {
      if (!fn(line)) return;
    } else {
      fn(line);
    }
    start = end + 1;
  }
}

// Leading spaces (a tab counts as one).
inline std::size_t indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
    ++i;
  return i;
}

// The whitespace-separated token that starts at or after `pos`; `pos` moves past it.
inline std::string_view next_token(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && is_space(s[pos]))
    ++pos;
  std::size_t start = pos;
  while (pos < s.size() && !is_space(s[pos]))
    ++pos;
  return s.substr(start, pos - start);
}

// "550.90.07", "12.4", "35.3.1": digits and dots, starting with a digit, with at least one dot.
inline bool looks_like_version(std::string_view s) {
  if (s.empty() || !is_digit(s.front()) || s.size() > 64) return false;
  bool dot = false;
  for (char c : s) {
    if (c == '.')
      dot = true;
    else if (!is_digit(c))
      return false;
  }
  return dot && s.back() != '.';
}

// "Key: value" (or any separator): the trimmed value when the trimmed key matches exactly.
inline std::optional<std::string_view> value_after(std::string_view line, std::string_view key,
                                                   char sep = ':') {
  std::size_t pos = line.find(sep);
  if (pos == std::string_view::npos || trim_view(line.substr(0, pos)) != key) return std::nullopt;
  return trim_view(line.substr(pos + 1));
}

// "name value" lines whose value is a whole number (the KFD topology's properties files): fn(name, value)
// for each; a line with another value is passed over.
template <class F> void for_each_number_property(std::string_view text, F&& fn) {
  for_each_line(text, [&](std::string_view line) {
    std::size_t pos = 0;
    std::string_view name = next_token(line, pos);
    if (std::optional<long long> v = text::to_int(next_token(line, pos))) fn(name, *v);
  });
}

// Sets the field `fields` names for `name` (a table of {name, &Struct::field}); other names change nothing.
template <class T, class Fields>
void set_named(T& out, const Fields& fields, std::string_view name, long long v) {
  for (const auto& [field_name, field] : fields)
    if (name == field_name) out.*field = v;
}

} // namespace gpudoctor::parse::detail
