// Keyed pseudonyms for `bundle --obfuscate`: HMAC-SHA256 of what they replace under a key that stays on the
// machine (--obfuscate-key). One key gives a host, a user or an address one stable pseudonym in every
// bundle, and different ones different pseudonyms, so a site's bundles can be compared; without the key a
// pseudonym cannot be traced back by trying names.
#pragma once

#include "util/hmac_sha256.hpp"

#include <map>
#include <string>
#include <string_view>

namespace gpudoctor {

class Pseudonyms {
public:
  explicit Pseudonyms(std::string key);

  // "host-3f9a1c2b": `kind` and the first 32 bits of the MAC of the value.
  std::string named(std::string_view kind, std::string_view value) const;
  // An IPv4 address in 240.0.0.0/4 (reserved, never a real host's) but 255.x: still an address to a parser.
  std::string ipv4(std::string_view address) const;
  // An IPv6 address in 2001:db8::/32 (the documentation prefix).
  std::string ipv6(std::string_view address) const;
  // A hardware address (MAC, EUI-64, IPoIB) of the same length, separators and letter case, locally
  // administered and unicast.
  std::string hardware(std::string_view address) const;
  // Hex digits replaced one by one, each by the original XOR a keyed function of the digits before it:
  // prefixes map to prefixes (CUDA_VISIBLE_DEVICES=GPU-8d3b still names the GPU whose pseudonym starts
  // with the pseudonym of 8d3b), and distinct ids stay distinct. Other characters ('-') and case are kept.
  std::string hex_id(std::string_view hex) const;
  // Which key made a bundle (8 hex digits), without revealing it: fleets compare bundles of one key id.
  std::string key_id() const;

private:
  Sha256Digest mac(std::string_view kind, std::string_view value) const;

  std::string m_key;
  mutable std::map<std::string, unsigned, std::less<>> m_nibbles; // hex_id: prefix -> its keyed nibble
};

} // namespace gpudoctor
