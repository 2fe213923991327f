#include "util/ere.hpp"

#include <regex.h>

namespace gpudoctor {

struct Ere::Compiled {
  regex_t re{};
  bool ok = false;
  ~Compiled() {
    if (ok) ::regfree(&re);
  }
};

std::expected<Ere, std::string> Ere::compile(const std::string& pattern) {
  auto c = std::make_shared<Compiled>();
  // Anchored here so "a|b" means the whole of a or the whole of b, as ^(a|b)$ does in awk.
  std::string anchored = "^(" + pattern + ")$";
  if (int rc = ::regcomp(&c->re, anchored.c_str(), REG_EXTENDED | REG_NOSUB); rc != 0) {
    char msg[256];
    ::regerror(rc, &c->re, msg, sizeof msg);
    return std::unexpected("bad regular expression \"" + pattern + "\": " + msg);
  }
  c->ok = true;
  Ere e;
  e.m_re = std::move(c);
  return e;
}

bool Ere::full_match(std::string_view s, std::size_t max_input) const {
  if (!m_re || s.size() > max_input || s.find('\0') != std::string_view::npos) return false;
  std::string copy(s);
  return ::regexec(&m_re->re, copy.c_str(), 0, nullptr, 0) == 0;
}

} // namespace gpudoctor
