#include "fix/script_text.hpp"

#include "util/escape.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor::fix {

std::string script_comment(std::string_view text) {
  return escape::one_line(text);
}

std::string unsafe_for_raw(std::string_view word) {
  for (char c : word)
    if (!shell_bare_ok(c) && c != '~') return std::string(1, c);
  return {};
}

namespace {

// A small reading of bash, enough to know the context of each character: plain words, quotes, comments,
// here-documents.
class Context {
public:
  explicit Context(std::string_view bash) : m_s(bash) {}

  std::string first_misplaced() {
    while (m_i < m_s.size()) {
      if (at_quoted_placeholder() && m_state != State::word && m_state != State::comment)
        return fmt::format("{{{{{}}}}} {}", name_here(), where());
      step();
    }
    return {};
  }

  bool opens_heredoc() {
    while (m_i < m_s.size() && !m_opened_heredoc)
      step();
    return m_opened_heredoc;
  }

private:
  enum class State { word, single, ansi, dquote, comment, heredoc };

  bool at_quoted_placeholder() const {
    return m_s.compare(m_i, 2, "{{") == 0 && m_s.compare(m_i, 3, "{{!") != 0;
  }
  std::string name_here() const {
    auto end = m_s.find("}}", m_i);
    return std::string(m_s.substr(m_i + 2, end == std::string_view::npos ? 0 : end - m_i - 2));
  }
  const char* where() const {
    switch (m_state) {
    case State::single:
    case State::ansi:
      return "is inside single quotes: its own quotes would end them";
    case State::dquote:
      return "is inside double quotes: its own quotes would end them";
    default:
      return "is inside a here-document, where quotes mean nothing: use {{!name}} there";
    }
  }

  void step() {
    char c = m_s[m_i];
    switch (m_state) {
    case State::word:
      return in_word(c);
    case State::single:
      if (c == '\'') m_state = State::word;
      break;
    case State::ansi:
    case State::dquote:
      if (c == '\\')
        ++m_i;
      else if (c == (m_state == State::ansi ? '\'' : '"'))
        m_state = State::word;
      break;
    case State::comment:
      if (c == '\n') return end_of_line();
      break;
    case State::heredoc:
      if (m_s[m_i - 1] == '\n' && closes_heredoc()) return;
      break;
    }
    ++m_i;
  }

  void in_word(char c) {
    bool word_start = m_i == 0 || std::string_view(" \t\n;&|()").find(m_s[m_i - 1]) != std::string_view::npos;
    if (c == '\\')
      m_i += 1;
    else if (c == '\'')
      m_state = State::single;
    else if (c == '"')
      m_state = State::dquote;
    else if (c == '$' && m_s.compare(m_i, 2, "$'") == 0)
      m_state = State::ansi, ++m_i;
    else if (c == '#' && word_start)
      m_state = State::comment;
    else if (c == '<' && m_s.compare(m_i, 2, "<<") == 0 && m_s.compare(m_i, 3, "<<<") != 0)
      return heredoc_start();
    else if (c == '<' && m_s.compare(m_i, 3, "<<<") == 0)
      m_i += 2;
    else if (c == '\n')
      return end_of_line();
    ++m_i;
  }

  // `<<[-] DELIM`: the document starts on the next line; its delimiter without quotes ends it.
  void heredoc_start() {
    m_opened_heredoc = true;
    m_i += 2;
    bool strip_tabs = m_i < m_s.size() && m_s[m_i] == '-';
    if (strip_tabs) ++m_i;
    while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t'))
      ++m_i;
    std::string delim;
    while (m_i < m_s.size() && std::string_view(" \t\n;&|<>()").find(m_s[m_i]) == std::string_view::npos) {
      if (m_s[m_i] != '\'' && m_s[m_i] != '"' && m_s[m_i] != '\\') delim += m_s[m_i];
      ++m_i;
    }
    m_pending.push_back({delim, strip_tabs});
  }

  void end_of_line() {
    ++m_i;
    m_state = m_pending.empty() ? State::word : State::heredoc;
  }

  // At the start of a line of a here-document: whether it is the delimiter line (then skipped).
  bool closes_heredoc() {
    auto end = m_s.find('\n', m_i);
    std::string_view line =
        m_s.substr(m_i, end == std::string_view::npos ? std::string_view::npos : end - m_i);
    if (m_pending.front().strip_tabs) line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
    if (line != m_pending.front().delim) return false;
    m_pending.erase(m_pending.begin());
    m_i = end == std::string_view::npos ? m_s.size() : end + 1;
    m_state = m_pending.empty() ? State::word : State::heredoc;
    return true;
  }

  struct Pending {
    std::string delim;
    bool strip_tabs;
  };
  std::string_view m_s;
  std::size_t m_i = 0;
  State m_state = State::word;
  std::vector<Pending> m_pending;
  bool m_opened_heredoc = false;
};

} // namespace

std::string misplaced_placeholder(std::string_view bash) {
  return Context(bash).first_misplaced();
}

bool opens_heredoc(std::string_view bash) {
  return Context(bash).opens_heredoc();
}

} // namespace gpudoctor::fix
