#include "bundle/redact_text.hpp"

#include "bundle/secret_shapes.hpp"
#include "util/text.hpp"

#include <cctype>
#include <cstring>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}
bool one_of(char c, const char* set) {
  return c != '\0' && std::strchr(set, c) != nullptr;
}

// Where a URL ends: at blanks, quotes and angle brackets.
constexpr const char* k_url_end = " \t\r\n\f\v\"'`<>";

// Whether [start, at) of a URL, before its last '@', is userinfo ("user:pa/ss") rather than a host and a
// path holding an '@' ("registry/@types", "host:8443/a").
bool is_userinfo(std::string_view candidate) {
  std::size_t slash = candidate.find('/');
  if (slash == std::string_view::npos) return candidate.find_first_of("?#") == std::string_view::npos;
  std::size_t colon = candidate.substr(0, slash).find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view port = candidate.substr(colon + 1, slash - colon - 1);
  bool digits = !port.empty();
  for (char c : port)
    digits = digits && std::isdigit(static_cast<unsigned char>(c));
  return !digits;
}

// "key", "sig", "X-Amz-Signature", "pwd": names that hold a secret in a query or a connection string,
// though not as a variable's name (PWD is the working folder).
bool credential_field(std::string_view name) {
  std::string n = text::lower(name);
  return n == "key" || n == "sig" || n == "pwd" || n == "pass" || text::contains(n, "signature") ||
         text::contains(n, "credential");
}

bool user_flag(std::string_view flag) {
  return flag == "-u" || flag == "--user" || flag == "--proxy-user" || flag == "--username-password";
}

bool secret_flag(std::string_view flag, const SecretNames& names) {
  return text::starts_with(flag, "--") && (names.redact(flag) || credential_field(flag.substr(2)));
}

// One pass over the text for everything written as words: flags, NAME=value, fields, headers.
class WordScanner {
public:
  WordScanner(std::string_view text, const SecretNames& names, bool assignments)
      : s(text), m_names(names), m_assignments(assignments) {}

  std::string run() {
    while (i < s.size()) {
      char prev = i == 0 ? ' ' : s[i - 1];
      bool word_start = space(prev) || one_of(prev, "\"'`(,[{=:");
      bool field_start = one_of(prev, "?&;#");
      if ((word_start || field_start) && (header() || bearer() || word(field_start))) continue;
      out += s[i++];
    }
    return std::move(out);
  }

private:
  bool starts_ci(std::size_t at, std::string_view what) const {
    if (s.size() - at < what.size()) return false;
    for (std::size_t k = 0; k < what.size(); ++k)
      if (std::tolower(static_cast<unsigned char>(s[at + k])) != what[k]) return false;
    return true;
  }
  std::size_t skip_blanks(std::size_t at) const {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t'))
      ++at;
    return at;
  }
  // The end of a value starting at `at`: a quoted one through its closing quote (on its line), else the
  // first blank, quote or shell operator; in fields also '#'.
  std::size_t value_end(std::size_t at, bool field) const {
    if (at < s.size() && (s[at] == '"' || s[at] == '\'')) {
      std::size_t close = s.find_first_of(std::string{s[at], '\n'}, at + 1);
      if (close == std::string_view::npos) return s.size();
      return s[close] == '\n' ? close : close + 1;
    }
    while (at < s.size() && !space(s[at]) && !one_of(s[at], "\"'`;&|),<>") && !(field && s[at] == '#'))
      ++at;
    return at;
  }
  void redact_span(std::size_t keep_to, std::size_t end) {
    out.append(s.substr(i, keep_to - i));
    out += k_redacted;
    i = end;
  }

  // "Authorization: Bearer x", "authorization=Basic x": the scheme stays, the rest of the header goes.
  bool header() {
    if (!starts_ci(i, "authorization")) return false;
    std::size_t at = skip_blanks(i + 13);
    if (at >= s.size() || (s[at] != ':' && s[at] != '=')) return false;
    at = skip_blanks(at + 1);
    for (std::string_view scheme : {"bearer ", "basic ", "token ", "digest ", "negotiate ", "apikey "})
      if (starts_ci(at, scheme)) {
        at = skip_blanks(at + scheme.size());
        break;
      }
    std::size_t end = s.find_first_of("\"'\r\n", at);
    if (end == std::string_view::npos) end = s.size();
    if (end == at) return false;
    redact_span(at, end);
    return true;
  }

  // "Bearer <token>" outside a header (an environment value, a log line).
  bool bearer() {
    if (!starts_ci(i, "bearer") || i + 6 >= s.size() || !(s[i + 6] == ' ' || s[i + 6] == '\t')) return false;
    std::size_t at = skip_blanks(i + 6), end = at;
    while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || one_of(s[end], "._~+/=-")))
      ++end;
    if (end - at < 8) return false;
    redact_span(at, end);
    return true;
  }

  // A name, a flag or a field; the name is copied (or its value redacted) and the scan goes on after it.
  bool word(bool field) {
    std::size_t end = i;
    while (end < s.size() && name_char(s[end]))
      ++end;
    if (end == i) return false;
    std::string_view name = s.substr(i, end - i);
    bool flag = name[0] == '-';
    if (end < s.size() && s[end] == '=') {
      bool secret = flag    ? secret_flag(name, m_names)
                    : field ? m_names.redact(name) || credential_field(name)
                            : m_assignments && m_names.redact(name);
      if (flag && user_flag(name)) return user_value(end + 1);
      if (secret) {
        redact_span(end + 1, value_end(end + 1, field));
        return true;
      }
    } else if (flag && end < s.size() && (s[end] == ' ' || s[end] == '\t')) {
      if (user_flag(name)) return user_value(skip_blanks(end));
      if (secret_flag(name, m_names)) {
        std::size_t at = skip_blanks(end);
        if (at < s.size() && !space(s[at]) && s[at] != '-') { // "--auth-required --log x": no value
          redact_span(at, value_end(at, false));
          return true;
        }
      }
    }
    out.append(name);
    i = end;
    return true;
  }

  // "-u user:pw": the user stays.
  bool user_value(std::size_t at) {
    std::size_t end = value_end(at, false);
    std::size_t colon = s.substr(at, end - at).find(':');
    if (colon == std::string_view::npos) return false;
    redact_span(at + colon + 1, end);
    return true;
  }

  std::string_view s;
  const SecretNames& m_names;
  bool m_assignments;
  std::size_t i = 0;
  std::string out;
};

} // namespace

std::string redact_url_credentials(std::string_view s) {
  std::string out;
  std::size_t copied = 0, from = 0, word_begin = 0, word_end = 0, last_at = std::string_view::npos;
  for (std::size_t scheme; (scheme = s.find("://", from)) != std::string_view::npos;) {
    std::size_t start = scheme + 3;
    if (start >= word_end) { // a new word: its end and last '@', found once per word
      word_begin = s.find_last_of(k_url_end, scheme);
      word_begin = word_begin == std::string_view::npos ? 0 : word_begin + 1;
      word_end = s.find_first_of(k_url_end, start);
      if (word_end == std::string_view::npos) word_end = s.size();
      std::size_t at = s.substr(word_begin, word_end - word_begin).rfind('@');
      last_at = at == std::string_view::npos ? at : word_begin + at;
    }
    if (last_at != std::string_view::npos && last_at > start &&
        is_userinfo(s.substr(start, last_at - start))) {
      out.append(s.substr(copied, start - copied));
      out += k_redacted;
      copied = last_at;
      from = last_at + 1;
      continue;
    }
    from = start;
  }
  out.append(s.substr(copied));
  return out;
}

TextRedactor::TextRedactor(SecretNames names) : m_names(std::move(names)) {}

std::string TextRedactor::credentials(std::string_view text, bool assignments) const {
  std::string urls = redact_url_credentials(text);
  return WordScanner(urls, m_names, assignments).run();
}

std::string TextRedactor::shapes(std::string_view text) {
  auto matches = find_secret_shapes(text, m_names.rules().shapes);
  if (matches.empty()) return std::string(text);
  std::string out;
  std::size_t copied = 0;
  for (const auto& m : matches) {
    out.append(text.substr(copied, m.begin - copied));
    std::string_view secret = text.substr(m.begin, m.end - m.begin);
    auto it = m_placeholders.find(secret);
    if (it == m_placeholders.end()) {
      int n = ++m_counts[std::string(m.kind)];
      it = m_placeholders.emplace(std::string(secret), fmt::format("<redacted:{}-{}>", m.kind, n)).first;
    }
    out += it->second;
    copied = m.end;
  }
  out.append(text.substr(copied));
  return out;
}

std::vector<std::string> TextRedactor::scrub_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < argv.size(); ++k) {
    const std::string& arg = argv[k];
    bool after_user = k > 0 && user_flag(argv[k - 1]);
    bool after_secret = k > 0 && secret_flag(argv[k - 1], m_names);
    if (after_user && arg.find(':') != std::string::npos)
      out.push_back(arg.substr(0, arg.find(':') + 1) + std::string(k_redacted));
    else if (after_secret)
      out.emplace_back(k_redacted);
    else
      out.push_back(scrub(arg, false));
  }
  return out;
}

} // namespace gpudoctor
