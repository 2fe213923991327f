#include "bundle/pseudonyms.hpp"

#include "util/text.hpp"

#include <cctype>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool upper_case_hex(std::string_view s) {
  bool upper = false, lower = false;
  for (char c : s) {
    upper = upper || (c >= 'A' && c <= 'F');
    lower = lower || (c >= 'a' && c <= 'f');
  }
  return upper && !lower;
}

} // namespace

Pseudonyms::Pseudonyms(std::string key) : m_key(std::move(key)) {}

Sha256Digest Pseudonyms::mac(std::string_view kind, std::string_view value) const {
  std::string message(kind);
  message += '\0';
  message += value;
  return hmac_sha256(m_key, message);
}

std::string Pseudonyms::named(std::string_view kind, std::string_view value) const {
  auto h = mac(kind, value);
  return fmt::format("{}-{:02x}{:02x}{:02x}{:02x}", kind, h[0], h[1], h[2], h[3]);
}

std::string Pseudonyms::ipv4(std::string_view address) const {
  auto h = mac("ipv4", address);
  return fmt::format("{}.{}.{}.{}", 240 + h[0] % 15, h[1], h[2], h[3]);
}

std::string Pseudonyms::ipv6(std::string_view address) const {
  auto h = mac("ipv6", text::lower(address));
  std::string out = "2001:db8";
  for (int g = 0; g < 6; ++g)
    out += fmt::format(":{:x}", h[2 * g] << 8 | h[2 * g + 1]);
  return out;
}

std::string Pseudonyms::hardware(std::string_view address) const {
  auto h = mac("hardware", text::lower(address));
  bool upper = upper_case_hex(address);
  std::string out;
  std::size_t octet = 0;
  for (std::size_t i = 0; i < address.size(); ++i) {
    if (hex_value(address[i]) < 0) {
      out += address[i];
      continue;
    }
    if (i + 1 < address.size() && hex_value(address[i + 1]) >= 0) {
      unsigned b = h[octet % h.size()];
      if (octet == 0) b = (b & 0xfc) | 0x02; // locally administered, unicast
      out += upper ? fmt::format("{:02X}", b) : fmt::format("{:02x}", b);
      ++octet;
      ++i;
    }
  }
  return out;
}

std::string Pseudonyms::hex_id(std::string_view hex) const {
  static constexpr std::string_view lower_digits = "0123456789abcdef", upper_digits = "0123456789ABCDEF";
  bool upper = upper_case_hex(hex);
  std::string out, prefix;
  for (char c : hex) {
    int v = hex_value(c);
    if (v < 0) {
      out += c;
      continue;
    }
    auto it = m_nibbles.find(prefix);
    if (it == m_nibbles.end()) it = m_nibbles.emplace(prefix, mac("hex-id", prefix)[0] & 0xfu).first;
    out += (upper ? upper_digits : lower_digits)[static_cast<unsigned>(v) ^ it->second];
    prefix += lower_digits[static_cast<std::size_t>(v)];
  }
  return out;
}

std::string Pseudonyms::key_id() const {
  return named("key", "gpudoctor obfuscation key id").substr(4);
}

} // namespace gpudoctor
