// Addresses and hardware ids in free text, replaced by their pseudonyms (pseudonyms.hpp): IPv4 and IPv6
// addresses, MAC/EUI-64/IPoIB hardware addresses, GPU-<hex> and MIG-<hex> ids (NVIDIA UUIDs and their
// prefixes, AMD's ROCr UUIDs) and 8-4-4-4-12 UUIDs. Hand-written scanners, linear in the text.
#pragma once

#include "bundle/pseudonyms.hpp"

#include <string>
#include <string_view>

namespace gpudoctor {

// Left as they are, identifying no one: loopback (127.0.0.0/8, ::1), unspecified (0.0.0.0, ::), broadcast
// (255.255.255.255), all-zero and all-one hardware addresses, and numbers that merely look like addresses:
// dotted versions (octets with leading zeros, a fifth part, "-9.1.0.70"), PCI addresses (0000:17:00.0),
// times (02:41:00). `min_gpu_digits`: the fewest hex digits after GPU-/MIG- to take as an id (a device
// list such as CUDA_VISIBLE_DEVICES takes any prefix: 1).
std::string pseudonymize_addresses(std::string_view text, const Pseudonyms& pseudonyms,
                                   std::size_t min_gpu_digits = 4);

} // namespace gpudoctor
