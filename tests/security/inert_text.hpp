// Helpers of the security suite's output tests: hostile strings, and a judge of text that is written
// independently of util/escape, so the tests do not grade the code with itself.
#pragma once

#include <string>
#include <vector>

namespace gpudoctor::security {

// What a terminal obeys or a reader misreads: clear screen, OSC 52 (set the clipboard), BEL, CR, BS, a
// colour, CSI as a C1 code point, a right-to-left override, a line separator, bytes that are not UTF-8.
inline const std::vector<std::string> k_hostile = {
    "\x1b[2J",
    "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07",
    "a\x07"
    "b",
    "pass\r\x1b[32mOK",
    "back\x08\x08",
    "\x1b[5;31mred",
    "\xc2\x9b"
    "31m",
    "abc\xe2\x80\xae"
    "fed",
    "line\xe2\x80\xa8"
    "sep",
    "bad \xff\xfe utf-8 \xc3( \xc0\x80 \xed\xa0\x80 \xf4\x90\x80\x80",
    "tab\tnew\nline\x7f",
    "\xef\xbf\xbe",
    std::string("nul\0byte", 8),
};

// The first byte sequence in `s` a reader would obey or misread ("" when none): a C0 control other than
// those `allowed`, DEL, a C1 control, a bidi control, a line separator, U+FFFE/U+FFFF, or bytes that are
// not UTF-8.
// `controls`: false when every control character counts as harmless (only whether `s` is UTF-8 matters).
inline std::string first_offence(const std::string& s, const std::string& allowed = "",
                                 bool controls = true) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7f) {
      if (controls && allowed.find(static_cast<char>(b)) == std::string::npos)
        return "control " + std::to_string(b);
      continue;
    }
    if (b < 0x80) continue;
    std::size_t n = (b & 0xe0) == 0xc0 ? 2 : (b & 0xf0) == 0xe0 ? 3 : (b & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return "not UTF-8 at " + std::to_string(i);
    char32_t cp = b & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xc0) != 0x80) return "not UTF-8 at " + std::to_string(i);
      cp = (cp << 6) | (c & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return "not UTF-8 at " + std::to_string(i);
    if (controls &&
        (cp <= 0x9f || cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 || cp == 0xfffe || cp == 0xffff))
      return "code point " + std::to_string(cp);
    i += n - 1;
  }
  return "";
}

inline bool is_utf8(const std::string& s) {
  return first_offence(s, "", false).empty();
}

} // namespace gpudoctor::security
