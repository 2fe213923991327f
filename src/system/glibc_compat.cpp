// Linked into the portable build only (CMakeLists.txt, GPUDOCTOR_PORTABLE), straight into the executable so
// that it comes before libc: libstdc++.a of Debian 12's GCC 12 calls arc4random (glibc 2.36) in
// std::random_device, which its COW-string shims pull in although gpudoctor never uses it. Defined here from
// getrandom (glibc 2.25), the binary needs no glibc newer than 2.34 (docs/packaging.md).
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sys/random.h>

extern "C" std::uint32_t arc4random() noexcept {
  std::uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  std::size_t got = 0;
  while (got < sizeof value) {
    ssize_t n = ::getrandom(bytes + got, sizeof value - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::abort(); // as glibc's own arc4random does when the kernel gives no randomness
    }
  }
  return value;
}
