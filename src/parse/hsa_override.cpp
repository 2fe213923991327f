#include "parse/parsers_layer.hpp"
#include "util/text.hpp"

#include <array>

namespace gpudoctor::parse {

std::optional<long long> hsa_override_gfx(std::string_view value) {
  auto parts = text::split(value, '.', true);
  if (parts.size() != 3) return std::nullopt;
  // Digits only: "%u" would also take a sign or leading blanks, which no real override carries. Three at
  // most: a longer field is out of range (or zero-padded, which the limits below would not tell apart).
  constexpr std::array<long long, 3> limits = {63, 255, 255};
  std::array<long long, 3> n{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (parts[i].empty() || parts[i].size() > 3) return std::nullopt;
    for (char c : parts[i])
      if (c < '0' || c > '9') return std::nullopt;
    auto v = text::to_int(parts[i]);
    if (!v || *v > limits[i]) return std::nullopt;
    n[i] = *v;
  }
  return n[0] * 10000 + n[1] * 100 + n[2];
}

} // namespace gpudoctor::parse
