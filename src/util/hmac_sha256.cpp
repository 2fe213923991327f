#include "util/hmac_sha256.hpp"

#include <algorithm>
#include <string>

namespace gpudoctor {

namespace {

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr std::array<std::uint32_t, 64> k_round = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

void compress(std::array<std::uint32_t, 8>& h, const std::uint8_t* block) {
  std::array<std::uint32_t, 64> w{};
  for (int t = 0; t < 16; ++t)
    w[t] = std::uint32_t(block[4 * t]) << 24 | std::uint32_t(block[4 * t + 1]) << 16 |
           std::uint32_t(block[4 * t + 2]) << 8 | std::uint32_t(block[4 * t + 3]);
  for (int t = 16; t < 64; ++t) {
    std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, hh] = h;
  for (int t = 0; t < 64; ++t) {
    std::uint32_t t1 =
        hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k_round[t] + w[t];
    std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  std::array<std::uint32_t, 8> add = {a, b, c, d, e, f, g, hh};
  for (int i = 0; i < 8; ++i)
    h[i] += add[i];
}

} // namespace

// §5.3.3: the initial hash value.
Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::update(std::string_view data) {
  m_length += data.size();
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t left = data.size();
  while (left > 0) {
    if (m_used == 0 && left >= 64) { // whole blocks straight from the input
      compress(m_state, bytes);
      bytes += 64;
      left -= 64;
      continue;
    }
    std::size_t take = std::min(left, 64 - m_used);
    std::copy_n(bytes, take, m_block.begin() + static_cast<std::ptrdiff_t>(m_used));
    m_used += take;
    bytes += take;
    left -= take;
    if (m_used == 64) {
      compress(m_state, m_block.data());
      m_used = 0;
    }
  }
}

Sha256Digest Sha256::digest() {
  // §5.1.1: a 1 bit, zeros, and the length in bits as 64 bits, to a multiple of 512 bits.
  std::uint64_t bits = m_length * 8;
  std::string tail(1, static_cast<char>(0x80));
  tail.append((m_used + 1 <= 56 ? 56 - m_used - 1 : 120 - m_used - 1), '\0');
  for (int i = 7; i >= 0; --i)
    tail += static_cast<char>((bits >> (8 * i)) & 0xff);
  update(tail);
  Sha256Digest out{};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j)
      out[4 * i + j] = static_cast<std::uint8_t>(m_state[i] >> (24 - 8 * j));
  return out;
}

Sha256Digest sha256(std::string_view data) {
  Sha256 hash;
  hash.update(data);
  return hash.digest();
}

std::string to_hex(const Sha256Digest& digest) {
  static constexpr std::string_view digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest.size());
  for (auto byte : digest) {
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

Sha256Digest hmac_sha256(std::string_view key, std::string_view message) {
  constexpr std::size_t block = 64;
  std::string k(key);
  if (k.size() > block) {
    auto d = sha256(k);
    k.assign(d.begin(), d.end());
  }
  k.resize(block, '\0');
  std::string inner(block, '\0'), outer(block, '\0');
  for (std::size_t i = 0; i < block; ++i) {
    inner[i] = static_cast<char>(k[i] ^ 0x36);
    outer[i] = static_cast<char>(k[i] ^ 0x5c);
  }
  auto inner_digest = sha256(inner + std::string(message));
  return sha256(outer + std::string(inner_digest.begin(), inner_digest.end()));
}

} // namespace gpudoctor
