// SHA-256 and HMAC-SHA256 against the published test vectors (FIPS 180-4 examples, RFC 4231).
#include "util/hmac_sha256.hpp"

#include <string>
#include <utility>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

std::string hex(const Sha256Digest& d) {
  return to_hex(d);
}

} // namespace

TEST_CASE("sha256: the standard's examples and a message across block boundaries") {
  CHECK(hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex(sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hex(sha256(std::string(1000000, 'a'))) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: a message given in pieces of every size hashes as the whole") {
  std::string message;
  for (int i = 0; i < 1000; ++i)
    message += static_cast<char>(i * 7 + 3);
  const std::string whole = hex(sha256(message));
  for (std::size_t piece : {1, 3, 55, 56, 63, 64, 65, 127, 128, 999}) {
    Sha256 hash;
    for (std::size_t off = 0; off < message.size(); off += piece)
      hash.update(std::string_view(message).substr(off, piece));
    CHECK_MESSAGE(hex(hash.digest()) == whole, "pieces of " << piece);
  }
  // The padding's edges: lengths that leave 55, 56, 63 and 0 bytes in the last block (sha256sum's digests).
  const std::pair<std::size_t, const char*> edges[] = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"}};
  for (const auto& [length, expected] : edges) {
    Sha256 hash;
    hash.update(std::string(length / 2, 'x'));
    hash.update(std::string(length - length / 2, 'x'));
    CHECK_MESSAGE(hex(hash.digest()) == expected, length << " bytes");
  }
}

TEST_CASE("hmac-sha256: RFC 4231 test cases 1, 2, 4 and 6") {
  CHECK(hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  std::string key4;
  for (int i = 1; i <= 25; ++i)
    key4 += static_cast<char>(i);
  CHECK(hex(hmac_sha256(key4, std::string(50, '\xcd'))) ==
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  CHECK(
      hex(hmac_sha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")) ==
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}
