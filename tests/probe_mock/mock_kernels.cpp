// probes/kernels.cu's launchers on the mock: the fill kernel really computes its values (so the kernel probe
// checks them as it would on a GPU), the stream kernels advance the mock's clock and verify reports the
// scenario's wrong values.
#include "kernels.h"
#include "mock_core.h"

namespace probe::kernels {

gpuError_t image_check() {
  return mock::kernel_image();
}

gpuError_t fill(unsigned* out, std::size_t n, unsigned seed, gpuStream_t) {
  if (int e = mock::kernel_image()) return e;
  const auto wrong = static_cast<std::size_t>(mock::setting("kernel_wrong", 0));
  for (std::size_t i = 0; i < n; ++i)
    out[i] = pattern(static_cast<unsigned>(i), seed) ^ (i < wrong ? 1u : 0u);
  return 0;
}

gpuError_t init_sources(void*, void*, std::size_t, int, gpuStream_t) {
  return mock::kernel_image();
}

gpuError_t copy(void*, const void*, std::size_t n, int, gpuStream_t) {
  return mock::kernel_stream("copy", n);
}

gpuError_t triad(void*, const void*, const void*, std::size_t n, int, gpuStream_t) {
  return mock::kernel_stream("triad", n);
}

gpuError_t verify(const void*, std::size_t, bool triad, unsigned long long* bad, int, gpuStream_t) {
  return mock::kernel_verify(bad, triad);
}

} // namespace probe::kernels
