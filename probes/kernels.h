// Launchers of the probes' device code (kernels.cu: the one file with device code, so the compiler's passes
// per target run once). Each returns the first runtime error, or success.
#pragma once

#include "gpu_compat.h"

#include <cstddef>

namespace probe::kernels {

// The value the fill kernel writes at index i; the host checks the result against it.
inline unsigned pattern(unsigned i, unsigned seed) {
  unsigned x = i * 2654435761u ^ seed;
  x ^= x >> 15;
  x *= 2246822519u;
  return x ^ (x >> 13);
}

// Asks the runtime for the fill kernel's attributes: fails with "no kernel image" / "invalid device
// function" / hipErrorNoBinaryForGpu when this binary holds no code for the current device.
gpuError_t image_check();
// out[i] = pattern(i, seed) for i < n, on `stream`.
gpuError_t fill(unsigned* out, std::size_t n, unsigned seed, gpuStream_t stream);

// Stream-style kernels over `n` 16-byte elements, with a grid of `blocks` x 256 threads.
constexpr int k_threads = 256;
constexpr float k_triad_scalar = 3.0f;
// b and c get values that make b + 3 * c exact in float, so the result can be checked bit for bit.
gpuError_t init_sources(void* b, void* c, std::size_t n, int blocks, gpuStream_t stream);
gpuError_t copy(void* dst, const void* src, std::size_t n, int blocks, gpuStream_t stream);
gpuError_t triad(void* a, const void* b, const void* c, std::size_t n, int blocks, gpuStream_t stream);
// Counts the elements of `a` that differ from b (triad false) or from b + 3 * c (triad true) into *bad
// (device memory, zeroed first).
gpuError_t verify(const void* a, std::size_t n, bool triad, unsigned long long* bad, int blocks,
                  gpuStream_t stream);

} // namespace probe::kernels
