// Shell start-up files and /etc/environment: variable assignments and sourced files, read without running
// or expanding anything. Words are scanned as the shell does (quotes, backslashes, $(...), ${...}, `...`
// nest), then grouped into simple commands at ';', '&', '|', newlines and parentheses.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_items = 100000;
constexpr std::size_t k_max_nesting = 256;

struct Word {
  std::string raw; // as written
  int line = 0;
};
struct Command {
  std::vector<Word> words;
};

bool shell_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool shell_name_char(char c) {
  return shell_name_start(c) || detail::is_digit(c);
}
bool valid_name(std::string_view s) {
  return !s.empty() && shell_name_start(s[0]) && std::all_of(s.begin(), s.end(), shell_name_char);
}

class Scanner {
public:
  explicit Scanner(std::string_view text) : t_(text) {}

  std::vector<Command> commands() {
    std::vector<Command> out(1);
    auto end_command = [&] {
      if (!out.back().words.empty() && out.size() < k_max_items) out.emplace_back();
    };
    while (i_ < t_.size()) {
      char c = t_[i_];
      if (c == '\\' && i_ + 1 < t_.size() && t_[i_ + 1] == '\n') { // line continuation
        i_ += 2;
        ++line_;
      } else if (c == '\n') {
        ++i_;
        ++line_;
        end_command();
      } else if (detail::is_space(c)) { // the same blanks that end a word in word()
        ++i_;
      } else if (c == '#') { // a comment: a '#' that starts a word
        while (i_ < t_.size() && t_[i_] != '\n')
          ++i_;
      } else if (c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>') {
        ++i_;
        if (c != '<' && c != '>') end_command();
      } else {
        std::size_t before = i_;
        Word w = word();
        if (i_ == before) { // cannot happen while word() and this loop agree on blanks; never stall
          ++i_;
          continue;
        }
        if (out.back().words.size() < k_max_items) out.back().words.push_back(std::move(w));
      }
    }
    if (out.back().words.empty()) out.pop_back();
    return out;
  }

private:
  // One word: up to an unquoted blank or operator, with everything quoted or nested inside it.
  Word word() {
    Word w{.line = line_};
    std::size_t start = i_;
    std::string stack; // the closers we wait for, innermost last: ' " ) } `
    while (i_ < t_.size()) {
      char c = t_[i_];
      char top = stack.empty() ? '\0' : stack.back();
      if (c == '\n' && !stack.empty()) ++line_; // a newline inside quotes or $( ) is part of the word
      if (top == '\'') {
        if (c == '\'') stack.pop_back();
        ++i_;
        continue;
      }
      if (c == '\\' && top != '\'') {
        if (i_ + 1 < t_.size() && t_[i_ + 1] == '\n') ++line_;
        i_ += 2;
        continue;
      }
      if (top == '\0') {
        if (detail::is_space(c) || c == ';' || c == '&' || c == '|' || c == ')' || c == '<' || c == '>')
          break;
        // "NAME=(a b)" is an array assignment; any other '(' ends the word ("f()").
        if (c == '(' && !(i_ > start && t_[i_ - 1] == '=') && !(i_ > start && t_[i_ - 1] == '$')) break;
      }
      bool pushes = stack.size() < k_max_nesting;
      if (top == '`') {
        if (c == '`') stack.pop_back();
      } else if (top == '"') {
        if (c == '"')
          stack.pop_back();
        else if (c == '`' && pushes)
          stack += '`';
        else if (c == '$' && i_ + 1 < t_.size() && (t_[i_ + 1] == '(' || t_[i_ + 1] == '{') && pushes) {
          stack += t_[i_ + 1] == '(' ? ')' : '}';
          ++i_;
        }
      } else { // top level, or inside $( ) / ${ }
        if (c == top && (c == ')' || c == '}'))
          stack.pop_back();
        else if ((c == '\'' || c == '"' || c == '`') && pushes)
          stack += c;
        else if (c == '(' && pushes)
          stack += ')';
        else if (c == '$' && i_ + 1 < t_.size() && t_[i_ + 1] == '{' && pushes) {
          stack += '}';
          ++i_;
        }
      }
      ++i_;
    }
    w.raw = std::string(t_.substr(start, i_ - start));
    return w;
  }

  std::string_view t_;
  std::size_t i_ = 0;
  int line_ = 1;
};

// Quote removal at the top level only: what is nested in $( ), ${ } or ` ` is kept as written.
std::string unquote(std::string_view s) {
  std::string out;
  std::string stack;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    char top = stack.empty() ? '\0' : stack.back();
    bool nested = !stack.empty() && (stack.front() != '"' || stack.size() > 1) && stack.front() != '\'';
    if (top == '\'') {
      if (c == '\'') {
        stack.pop_back();
        if (!stack.empty()) out += c;
      } else {
        out += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < s.size()) {
      char next = s[i + 1];
      if (nested) {
        out += c;
        out += next;
      } else if (top == '"' && next != '$' && next != '`' && next != '"' && next != '\\' && next != '\n') {
        out += c;
        out += next;
      } else if (next != '\n') {
        out += next;
      }
      ++i;
      continue;
    }
    bool pushes = stack.size() < k_max_nesting;
    if (top == '"' && c == '"') {
      stack.pop_back();
      if (!stack.empty()) out += c;
      continue;
    }
    if (top == '\0' && (c == '\'' || c == '"')) {
      if (pushes) stack += c;
      continue;
    }
    if (top == '`' && c == '`') {
      stack.pop_back();
    } else if (c == '`' && pushes) {
      stack += c;
    } else if (c == '$' && i + 1 < s.size() && (s[i + 1] == '(' || s[i + 1] == '{') && top != '`' && pushes) {
      stack += s[i + 1] == '(' ? ')' : '}';
      out += c;
      c = s[++i];
    } else if (c == top && (c == ')' || c == '}')) {
      stack.pop_back();
    } else if (top != '"' && top != '`' && (c == '\'' || c == '"') && pushes) {
      stack += c; // a quote inside $( ) or ${ }: kept
    } else if (c == '(' && top == ')' && pushes) {
      stack += ')';
    }
    out += c;
  }
  return out;
}

// "$PATH", "${PATH}", "${PATH:+:${PATH}}", "${PATH:-}": the variable's old value.
bool is_old_value(std::string_view piece, std::string_view name) {
  if (piece.starts_with('$') && piece.substr(1) == name) return true;
  if (!piece.starts_with("${") || !piece.ends_with('}')) return false;
  std::string_view rest = piece.substr(2);
  if (!rest.starts_with(name) || rest.size() == name.size()) return false;
  char after = rest[name.size()];
  return after == '}' || after == ':' || after == '+' || after == '-';
}

// Where an old-value expansion starts inside a piece ("/usr/local/cuda/bin${PATH:+:${PATH}}"), and its end.
std::optional<std::pair<std::size_t, std::size_t>> find_old_value(std::string_view piece,
                                                                  std::string_view name) {
  for (std::size_t at = piece.find('$'); at != std::string_view::npos; at = piece.find('$', at + 1)) {
    std::size_t end = at + 1;
    if (end < piece.size() && piece[end] == '{') {
      int depth = 0;
      for (; end < piece.size(); ++end) {
        if (piece[end] == '{') ++depth;
        if (piece[end] == '}' && --depth == 0) break;
      }
      if (end == piece.size()) return std::nullopt;
      ++end;
    } else {
      while (end < piece.size() && shell_name_char(piece[end]))
        ++end;
    }
    if (is_old_value(piece.substr(at, end - at), name)) return std::make_pair(at, end);
    at = end - 1; // what is nested in another expansion is not the old value
  }
  return std::nullopt;
}

// Splits at ':' outside ${ } and $( ); fills prepends / appends around the old value.
void path_entries(ShellAssignment& a, bool append_op, bool expand) {
  std::vector<std::string_view> pieces;
  std::string_view v = a.value;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= v.size(); ++i) {
    if (i < v.size() && (v[i] == '{' || v[i] == '(')) ++depth;
    if (i < v.size() && (v[i] == '}' || v[i] == ')') && depth > 0) --depth;
    if (i == v.size() || (v[i] == ':' && depth == 0)) {
      if (pieces.size() < k_max_items) pieces.push_back(v.substr(start, i - start));
      start = i + 1;
    }
  }
  a.keeps_old = append_op;
  auto add = [&](std::string_view entry) {
    if (entry.empty()) return;
    (a.keeps_old ? a.appends : a.prepends).emplace_back(entry);
  };
  for (std::string_view piece : pieces) {
    auto old = expand ? find_old_value(piece, a.name) : std::nullopt;
    if (!old || a.keeps_old) {
      add(piece);
      continue;
    }
    add(piece.substr(0, old->first));
    a.keeps_old = true;
    add(piece.substr(old->second));
  }
}

bool path_like(std::string_view name) {
  return name.ends_with("PATH") || name.ends_with("DIRS");
}

struct ProfileReader {
  std::string_view file;
  bool environment = false; // /etc/environment: no expansion, everything exported
  ShellProfile out;
  std::set<std::string> exported_names;

  // "NAME=value" / "NAME+=value": the assignment, or nothing.
  std::optional<ShellAssignment> assignment(const Word& w, bool exported) {
    std::size_t n = 0;
    while (n < w.raw.size() && shell_name_char(w.raw[n]))
      ++n;
    if (n == 0 || !shell_name_start(w.raw[0]) || n >= w.raw.size()) return std::nullopt;
    bool append_op = w.raw[n] == '+' && n + 1 < w.raw.size() && w.raw[n + 1] == '=';
    if (w.raw[n] != '=' && !append_op) return std::nullopt;
    ShellAssignment a{.file = std::string(file), .line = w.line, .name = w.raw.substr(0, n)};
    a.value = unquote(std::string_view(w.raw).substr(n + (append_op ? 2 : 1)));
    a.exported = exported || environment;
    if (path_like(a.name)) path_entries(a, append_op && !environment, !environment);
    return a;
  }

  void add(ShellAssignment a) {
    if (out.assignments.size() < k_max_items) out.assignments.push_back(std::move(a));
  }

  void command(const std::vector<Word>& words) {
    std::size_t i = 0;
    static constexpr std::string_view k_keywords[] = {"if",    "then", "else", "elif", "do",  "while",
                                                      "until", "!",    "{",    "}",    "time"};
    while (i < words.size() &&
           std::find(std::begin(k_keywords), std::end(k_keywords), words[i].raw) != std::end(k_keywords))
      ++i;
    if (i == words.size()) return;
    const std::string& verb = words[i].raw;
    if (environment || verb == "export" || verb == "declare" || verb == "typeset" || verb == "readonly") {
      bool exported = environment || verb == "export", unexport = false;
      std::size_t j = environment ? i : i + 1;
      if (environment && verb == "export") ++j; // pam_env tolerates "export NAME=value"
      for (; j < words.size() && words[j].raw.starts_with('-'); ++j) {
        if (words[j].raw.find('x') != std::string::npos) exported = true;
        if (words[j].raw.find('n') != std::string::npos && verb == "export") unexport = true;
      }
      if (unexport) return;
      for (; j < words.size(); ++j) {
        if (auto a = assignment(words[j], exported)) {
          if (exported) exported_names.insert(a->name);
          add(std::move(*a));
        } else if (exported && valid_name(words[j].raw) && exported_names.size() < k_max_items) {
          exported_names.insert(words[j].raw);
        }
      }
      return;
    }
    if ((verb == "." || verb == "source") && i + 1 < words.size()) {
      if (out.sourced.size() < k_max_items)
        out.sourced.push_back({std::string(file), words[i].line, unquote(words[i + 1].raw)});
      return;
    }
    // Leading assignments persist only when no command follows them ("A=1 cmd" sets A for cmd alone).
    std::vector<ShellAssignment> pending;
    for (; i < words.size(); ++i) {
      auto a = assignment(words[i], false);
      if (!a) return;
      pending.push_back(std::move(*a));
    }
    for (auto& a : pending)
      add(std::move(a));
  }
};

ShellProfile read_profile(std::string_view text, std::string_view file, bool environment) {
  ProfileReader r{.file = file, .environment = environment};
  for (const auto& c : Scanner(text).commands())
    r.command(c.words);
  for (auto& a : r.out.assignments)
    if (r.exported_names.count(a.name)) a.exported = true;
  return std::move(r.out);
}

} // namespace

std::vector<std::string> ShellAssignment::path_entries() const {
  std::vector<std::string> out = prepends;
  out.insert(out.end(), appends.begin(), appends.end());
  return out;
}

ShellProfile shell_profile(std::string_view text, std::string_view file) {
  return read_profile(text, file, false);
}

ShellProfile etc_environment(std::string_view text, std::string_view file) {
  return read_profile(text, file, true);
}

} // namespace gpudoctor::parse
