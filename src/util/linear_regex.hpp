// A small regular-expression matcher that runs in linear time on any input (docs/security.md, "No crash from
// data"). std::regex backtracks recursively: a long subject (a 100 KB line from a snapshot) overflows the
// stack. This one compiles the pattern to an NFA and simulates it (Thompson's construction): time
// O(pattern × text), memory O(pattern), no recursion over the text.
//
// Syntax, a subset of POSIX ERE: literals, `.`, bracket expressions (`[A-Z0-9_]`, ranges, `[^...]`), `*`,
// `+`,
// `?`, `|`, groups `( )`, and `\` before a character to take it literally. Anything else (anchors, `{m,n}`,
// back-references, classes like `[:alpha:]`) is refused at compile time.
#pragma once

#include <bitset>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

class LinearRegex {
public:
  // Patterns are short (a table's data); longer or deeper ones are refused.
  static constexpr std::size_t k_max_pattern = 4096;
  static std::expected<LinearRegex, std::string> compile(std::string_view pattern);
  // Whether the whole of `text` matches (as std::regex_match, or `^(pattern)$`).
  bool full_match(std::string_view text) const;

  struct State {
    enum class Kind { chars, split, empty, match } kind = Kind::empty;
    std::bitset<256> chars;
    int out = -1, out2 = -1;
  };

private:
  std::vector<State> m_states;
  int m_start = -1;
  friend class LinearRegexParser;
};

} // namespace gpudoctor
