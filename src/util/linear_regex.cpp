#include "util/linear_regex.hpp"

#include <cstdint>
#include <optional>

#include <fmt/format.h>

namespace gpudoctor {

using Kind = LinearRegex::State::Kind;

// Recursive descent over the pattern (bounded: k_max_pattern, k_max_depth), building NFA fragments.
class LinearRegexParser {
public:
  static constexpr int k_max_depth = 64;
  explicit LinearRegexParser(std::string_view p) : m_p(p) {}

  std::expected<LinearRegex, std::string> run() {
    auto top = alternation(0);
    if (!top) return std::unexpected(top.error());
    if (m_i != m_p.size()) return std::unexpected(fmt::format("unexpected '{}' at {}", m_p[m_i], m_i));
    int match = add({Kind::match, {}, -1, -1});
    patch(top->dangling, match);
    m_re.m_start = top->start;
    return std::move(m_re);
  }

private:
  // A piece of NFA: where it starts, and the exits (state index, which out) still to connect.
  struct Fragment {
    int start;
    std::vector<std::pair<int, int>> dangling;
  };

  std::string_view m_p;
  std::size_t m_i = 0;
  LinearRegex m_re;

  int add(LinearRegex::State s) {
    m_re.m_states.push_back(s);
    return static_cast<int>(m_re.m_states.size()) - 1;
  }
  void patch(const std::vector<std::pair<int, int>>& exits, int to) {
    for (auto [state, which] : exits)
      (which == 0 ? m_re.m_states[state].out : m_re.m_states[state].out2) = to;
  }
  Fragment empty() {
    int s = add({Kind::empty, {}, -1, -1});
    return {s, {{s, 0}}};
  }
  bool at(char c) const { return m_i < m_p.size() && m_p[m_i] == c; }

  std::expected<Fragment, std::string> alternation(int depth) {
    if (depth > k_max_depth) return std::unexpected(std::string("groups nested too deep"));
    auto left = sequence(depth);
    if (!left) return left;
    while (at('|')) {
      ++m_i;
      auto right = sequence(depth);
      if (!right) return right;
      int split = add({Kind::split, {}, left->start, right->start});
      left->dangling.insert(left->dangling.end(), right->dangling.begin(), right->dangling.end());
      left->start = split;
    }
    return left;
  }

  std::expected<Fragment, std::string> sequence(int depth) {
    std::optional<Fragment> seq;
    while (m_i < m_p.size() && !at('|') && !at(')')) {
      auto piece = repeat(depth);
      if (!piece) return piece;
      if (!seq) {
        seq = *piece;
      } else {
        patch(seq->dangling, piece->start);
        seq->dangling = piece->dangling;
      }
    }
    return seq ? *seq : empty();
  }

  std::expected<Fragment, std::string> repeat(int depth) {
    auto a = atom(depth);
    if (!a) return a;
    while (at('*') || at('+') || at('?')) {
      char op = m_p[m_i++];
      int split = add({Kind::split, {}, a->start, -1});
      if (op == '?') {
        a->dangling.push_back({split, 1});
        a->start = split;
      } else {
        patch(a->dangling, split); // loop back
        a->dangling = {{split, 1}};
        if (op == '*') a->start = split;
      }
    }
    return a;
  }

  std::expected<Fragment, std::string> atom(int depth) {
    char c = m_p[m_i];
    if (c == '(') {
      ++m_i;
      auto inner = alternation(depth + 1);
      if (!inner) return inner;
      if (!at(')')) return std::unexpected(std::string("unclosed '('"));
      ++m_i;
      return inner;
    }
    std::bitset<256> set;
    if (c == '[') {
      auto parsed = bracket();
      if (!parsed) return std::unexpected(parsed.error());
      set = *parsed;
    } else if (c == '.') {
      set.set();
      ++m_i;
    } else if (c == '\\') {
      if (m_i + 1 >= m_p.size()) return std::unexpected(std::string("'\\' at the end"));
      set.set(static_cast<unsigned char>(m_p[m_i + 1]));
      m_i += 2;
    } else if (c == '*' || c == '+' || c == '?' || c == '{' || c == '^' || c == '$') {
      return std::unexpected(fmt::format("'{}' at {} is not supported here", c, m_i));
    } else {
      set.set(static_cast<unsigned char>(c));
      ++m_i;
    }
    int s = add({Kind::chars, set, -1, -1});
    return Fragment{s, {{s, 0}}};
  }

  std::expected<std::bitset<256>, std::string> bracket() {
    ++m_i; // '['
    bool negate = at('^');
    if (negate) ++m_i;
    std::bitset<256> set;
    bool first = true;
    while (m_i < m_p.size() && (first || !at(']'))) {
      first = false;
      auto lo = static_cast<unsigned char>(m_p[m_i]);
      if (lo == '[' && m_i + 1 < m_p.size() &&
          (m_p[m_i + 1] == ':' || m_p[m_i + 1] == '=' || m_p[m_i + 1] == '.'))
        return std::unexpected(std::string("character classes are not supported"));
      unsigned char hi = lo;
      if (m_i + 2 < m_p.size() && m_p[m_i + 1] == '-' && m_p[m_i + 2] != ']') {
        hi = static_cast<unsigned char>(m_p[m_i + 2]);
        m_i += 2;
      }
      if (hi < lo) return std::unexpected(fmt::format("range out of order at {}", m_i));
      for (unsigned v = lo; v <= hi; ++v)
        set.set(v);
      ++m_i;
    }
    if (!at(']')) return std::unexpected(std::string("unclosed '['"));
    ++m_i;
    if (negate) set.flip();
    return set;
  }
};

std::expected<LinearRegex, std::string> LinearRegex::compile(std::string_view pattern) {
  if (pattern.size() > k_max_pattern)
    return std::unexpected(fmt::format("pattern longer than {} bytes", k_max_pattern));
  return LinearRegexParser(pattern).run();
}

bool LinearRegex::full_match(std::string_view text) const {
  if (m_start < 0) return false;
  // The set of states the NFA can be in; `mark` stamps each state with the step that added it.
  std::vector<int> current, next, stack;
  std::vector<std::size_t> mark(m_states.size(), SIZE_MAX);
  auto add = [&](std::vector<int>& set, int state, std::size_t step) {
    stack.assign(1, state);
    while (!stack.empty()) {
      int s = stack.back();
      stack.pop_back();
      if (s < 0 || mark[s] == step) continue;
      mark[s] = step;
      const State& st = m_states[s];
      if (st.kind == Kind::split) {
        stack.push_back(st.out2);
        stack.push_back(st.out);
      } else if (st.kind == Kind::empty) {
        stack.push_back(st.out);
      } else {
        set.push_back(s);
      }
    }
  };
  add(current, m_start, 0);
  for (std::size_t i = 0; i < text.size() && !current.empty(); ++i) {
    next.clear();
    for (int s : current)
      if (m_states[s].kind == Kind::chars && m_states[s].chars.test(static_cast<unsigned char>(text[i])))
        add(next, m_states[s].out, i + 1);
    std::swap(current, next);
    if (current.empty()) return false;
  }
  for (int s : current)
    if (m_states[s].kind == Kind::match) return true;
  return false;
}

} // namespace gpudoctor
