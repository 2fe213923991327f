// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): the keyed pseudonyms of `bundle --obfuscate`, and the
// digest `bundle` shows of its archive. Written from the standards (no crypto library is a dependency);
// tested with their published vectors.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpudoctor {

using Sha256Digest = std::array<std::uint8_t, 32>;

// The digest of data given in pieces (a file read in blocks): update() any number of times, then digest()
// once.
class Sha256 {
public:
  Sha256();
  void update(std::string_view data);
  Sha256Digest digest();

private:
  std::array<std::uint32_t, 8> m_state{};
  std::array<std::uint8_t, 64> m_block{};
  std::size_t m_used = 0;     // bytes in m_block
  std::uint64_t m_length = 0; // bytes given in all
};

Sha256Digest sha256(std::string_view data);
// The digest as sha256sum(1) writes it: 64 lowercase hex digits.
std::string to_hex(const Sha256Digest& digest);
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);

} // namespace gpudoctor
