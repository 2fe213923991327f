#include "util/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace gpudoctor::utf8 {

std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  if (b < 0x80) return {b, 1};
  std::size_t n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
  if (n == 0 || b > 0xf4 || i + n > s.size()) return {0, 0};
  char32_t cp = b & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return {0, 0};
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  static constexpr char32_t k_min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < k_min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {0, 0};
  return {cp, n};
}

bool valid(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (s.size() - i >= 8) {
      std::uint64_t block = 0;
      std::memcpy(&block, s.data() + i, 8);
      if ((block & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    std::size_t n = decode(s, i).second;
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

} // namespace gpudoctor::utf8
