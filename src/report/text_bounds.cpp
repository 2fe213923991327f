#include "report/text_bounds.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace gpudoctor {

std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t end = max_bytes;
  // Step back over continuation bytes to the start of the character that does not fit.
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xc0) == 0x80)
    --end;
  return s.substr(0, end);
}

namespace {

// FNV-1a, 32 bits: the same on every platform and release, unlike std::hash.
std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

} // namespace

std::string bounded(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  std::string mark = fmt::format("…#{:08x}", fnv1a(s));
  std::size_t room = max_bytes > mark.size() ? max_bytes - mark.size() : 0;
  return std::string(utf8_prefix(s, room)) + mark;
}

} // namespace gpudoctor
