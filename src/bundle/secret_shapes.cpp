#include "bundle/secret_shapes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string>

namespace gpudoctor {

namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool base64url(char c) {
  return is_alnum(c) || c == '_' || c == '-';
}
bool base64_char(char c) {
  return is_alnum(c) || c == '/' || c == '+';
}

bool url_path(char c) {
  return is_alnum(c) || c == '/' || c == '_' || c == '-';
}

enum class Alphabet { alnum, alnum_underscore, alnum_dash, base64url, url_path };

Alphabet alphabet_of(const std::string& name) {
  if (name == "alnum") return Alphabet::alnum;
  if (name == "alnum_underscore") return Alphabet::alnum_underscore;
  if (name == "alnum_dash") return Alphabet::alnum_dash;
  if (name == "url_path") return Alphabet::url_path;
  return Alphabet::base64url; // the loader admits no other name
}

bool in(Alphabet a, char c) {
  switch (a) {
  case Alphabet::alnum:
    return is_alnum(c);
  case Alphabet::alnum_underscore:
    return is_alnum(c) || c == '_';
  case Alphabet::alnum_dash:
    return is_alnum(c) || c == '-';
  case Alphabet::url_path:
    return url_path(c);
  case Alphabet::base64url:
    return base64url(c);
  }
  return false;
}

bool random_looking(std::string_view run, bool mixed_case, bool digit) {
  bool upper = false, lower = false, has_digit = false;
  for (char c : run) {
    upper = upper || std::isupper(static_cast<unsigned char>(c));
    lower = lower || std::islower(static_cast<unsigned char>(c));
    has_digit = has_digit || std::isdigit(static_cast<unsigned char>(c));
  }
  return (!mixed_case || (upper && lower)) && (!digit || has_digit);
}

class Scanner {
public:
  Scanner(std::string_view text, const std::vector<SecretShapeRow>& rows)
      : t(text), shapes(rows), failed_until(rows.size(), 0) {
    starts = "eA"; // a JSON Web Token, an AWS key id
    for (const auto& shape : shapes) {
      if (starts.find(shape.prefix[0]) == std::string::npos) starts += shape.prefix[0];
      alphabets.push_back(alphabet_of(shape.alphabet));
    }
  }

  std::vector<ShapeMatch> run() {
    std::size_t i = 0;
    while (i < t.size()) {
      std::size_t end = 0;
      if (t[i] == '-' && (end = private_key(i)) != 0) {
        found.push_back({i, end, "private-key"});
        i = end;
        continue;
      }
      // Every format starts with one of these characters: most positions cost one comparison.
      bool word_start = (i == 0 || !is_alnum(t[i - 1])) && starts.find(t[i]) != std::string::npos;
      if (word_start && ((end = prefixed(i)) != 0 || (end = jwt(i)) != 0 || (end = aws_key_id(i)) != 0)) {
        i = end;
        continue;
      }
      ++i;
    }
    if (!aws_id_lines.empty()) aws_secrets();
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
    std::vector<ShapeMatch> out;
    for (const auto& m : found)
      if (out.empty() || m.begin >= out.back().end) out.push_back(m);
    return out;
  }

private:
  // "-----BEGIN <...> PRIVATE KEY-----" through its END line (or the end of the text when it has none).
  std::size_t private_key(std::size_t i) {
    static constexpr std::string_view begin = "-----BEGIN ", end = "-----END ", dashes = "-----";
    if (t.compare(i, begin.size(), begin) != 0) return 0;
    std::string_view window = t.substr(i + begin.size(), 64); // labels are short: bounded work per BEGIN
    std::size_t label_len = window.find(dashes);
    if (label_len == std::string_view::npos) return 0;
    std::string_view label = window.substr(0, label_len);
    std::size_t label_end = i + begin.size() + label_len;
    if (label.find("PRIVATE KEY") == std::string_view::npos) return 0;
    std::size_t close = t.find(end, label_end + dashes.size());
    if (close == std::string_view::npos) return t.size();
    std::size_t close_end = t.find(dashes, close + end.size());
    return close_end == std::string_view::npos ? t.size() : close_end + dashes.size();
  }

  std::size_t prefixed(std::size_t i) {
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const auto& shape = shapes[s];
      if (t[i] != shape.prefix[0] || i < failed_until[s] ||
          t.compare(i, shape.prefix.size(), shape.prefix) != 0)
        continue;
      std::size_t start = i + shape.prefix.size(), end = start;
      while (end < t.size() && in(alphabets[s], t[end]))
        ++end;
      // A later start inside this run sees a shorter run of the same characters: it fails too.
      if (end - start < shape.min ||
          !random_looking(t.substr(start, end - start), shape.mixed_case, shape.digit)) {
        failed_until[s] = end;
        continue;
      }
      found.push_back({i, end, shape.kind});
      return end;
    }
    return 0;
  }

  std::size_t run_of_base64url(std::size_t from) const {
    while (from < t.size() && base64url(t[from]))
      ++from;
    return from;
  }

  // header.payload.signature, each base64url; the header is a JSON object, so it starts "eyJ".
  std::size_t jwt(std::size_t i) {
    if (i < jwt_failed_until || t.compare(i, 3, "eyJ") != 0) return 0;
    std::size_t e1 = run_of_base64url(i);
    bool ok = e1 - i >= 10 && e1 < t.size() && t[e1] == '.';
    std::size_t e2 = ok ? run_of_base64url(e1 + 1) : e1;
    ok = ok && e2 - e1 > 10 && e2 < t.size() && t[e2] == '.';
    std::size_t e3 = ok ? run_of_base64url(e2 + 1) : e2;
    if (!ok || e3 - e2 <= 16) {
      jwt_failed_until = e1;
      return 0;
    }
    found.push_back({i, e3, "jwt"});
    return e3;
  }

  // AKIA (long-term) or ASIA (temporary) and 16 upper-case letters or digits.
  std::size_t aws_key_id(std::size_t i) {
    if (t.compare(i, 4, "AKIA") != 0 && t.compare(i, 4, "ASIA") != 0) return 0;
    std::size_t end = i + 4;
    while (end < t.size() && end < i + 21 &&
           (std::isupper(static_cast<unsigned char>(t[end])) ||
            std::isdigit(static_cast<unsigned char>(t[end]))))
      ++end;
    if (end != i + 20 || (end < t.size() && is_alnum(t[end]))) return 0;
    found.push_back({i, end, "aws-key-id"});
    aws_id_lines.push_back(line_of(i));
    return end;
  }

  std::size_t line_of(std::size_t pos) {
    for (; line_pos < pos; ++line_pos)
      if (t[line_pos] == '\n') ++line;
    return line;
  }

  void aws_secrets() {
    std::size_t i = 0, line_no = 0;
    while (i < t.size()) {
      if (t[i] == '\n') ++line_no;
      if (!base64_char(t[i]) || (i > 0 && base64_char(t[i - 1]))) {
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < t.size() && base64_char(t[end]))
        ++end;
      bool near = std::any_of(aws_id_lines.begin(), aws_id_lines.end(),
                              [&](std::size_t l) { return (l > line_no ? l - line_no : line_no - l) <= 2; });
      if (end - i == 40 && near && random_looking(t.substr(i, 40), true, true))
        found.push_back({i, end, "aws-secret-key"});
      i = end;
    }
  }

  std::string_view t;
  const std::vector<SecretShapeRow>& shapes;
  std::string starts;              // the first characters of every format
  std::vector<Alphabet> alphabets; // per shape
  std::vector<ShapeMatch> found;
  std::vector<std::size_t> failed_until; // per shape
  std::size_t jwt_failed_until = 0;
  std::vector<std::size_t> aws_id_lines;
  std::size_t line = 0, line_pos = 0;
};

} // namespace

std::vector<ShapeMatch> find_secret_shapes(std::string_view text, const std::vector<SecretShapeRow>& shapes) {
  return Scanner(text, shapes).run();
}

} // namespace gpudoctor
