// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104): the keyed pseudonyms of `bundle --obfuscate`. Written
// from the standards (no crypto library is a dependency); tested with their published vectors.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gpudoctor {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);

} // namespace gpudoctor
