// Every kernel of the probes. Memory-bound kernels follow the usual habits for HBM GPUs (Hopper, CDNA):
// 16-byte accesses coalesced across the warp/wavefront, four independent loads in flight per thread before
// the first store, and a grid that fills the device once and strides over the buffer.
#include "kernels.h"

namespace probe::kernels {

namespace {

__device__ inline unsigned device_pattern(unsigned i, unsigned seed) {
  unsigned x = i * 2654435761u ^ seed;
  x ^= x >> 15;
  x *= 2246822519u;
  return x ^ (x >> 13);
}

// Element e of the sources, as exact small integers: b + 3 * c stays below 2^24.
__device__ inline float4 source_b(std::size_t e) {
  unsigned v = static_cast<unsigned>(e * 4);
  return make_float4(float(v & 1023u), float((v + 1) & 1023u), float((v + 2) & 1023u),
                     float((v + 3) & 1023u));
}
__device__ inline float4 source_c(std::size_t e) {
  unsigned v = static_cast<unsigned>(e * 4);
  return make_float4(float((v >> 10) & 1023u), float(((v + 1) >> 10) & 1023u), float(((v + 2) >> 10) & 1023u),
                     float(((v + 3) >> 10) & 1023u));
}
__device__ inline float4 triad_of(float4 b, float4 c) {
  const float s = k_triad_scalar;
  return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}

__global__ void fill_kernel(unsigned* out, std::size_t n, unsigned seed) {
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = device_pattern(static_cast<unsigned>(i), seed);
}

__global__ void init_kernel(float4* b, float4* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    b[i] = source_b(i);
    c[i] = source_c(i);
  }
}

__global__ void __launch_bounds__(k_threads)
    copy_kernel(int4* __restrict__ dst, const int4* __restrict__ src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 v0 = src[i], v1 = src[i + stride], v2 = src[i + 2 * stride], v3 = src[i + 3 * stride];
    dst[i] = v0;
    dst[i + stride] = v1;
    dst[i + 2 * stride] = v2;
    dst[i + 3 * stride] = v3;
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

__global__ void __launch_bounds__(k_threads)
    triad_kernel(float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                 std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + stride < n; i += 2 * stride) {
    float4 b0 = b[i], b1 = b[i + stride], c0 = c[i], c1 = c[i + stride];
    a[i] = triad_of(b0, c0);
    a[i + stride] = triad_of(b1, c1);
  }
  for (; i < n; i += stride)
    a[i] = triad_of(b[i], c[i]);
}

__global__ void verify_kernel(const float4* a, std::size_t n, bool triad, unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 want = triad ? triad_of(source_b(i), source_c(i)) : source_b(i);
    float4 got = a[i];
    mine += (got.x != want.x) + (got.y != want.y) + (got.z != want.z) + (got.w != want.w);
  }
  if (mine) atomicAdd(bad, mine);
}

gpuError_t launched() {
  return gpuGetLastError();
}

} // namespace

gpuError_t image_check() {
  gpuFuncAttributes attributes;
  return gpuFuncGetAttributes(&attributes, reinterpret_cast<const void*>(fill_kernel));
}

gpuError_t fill(unsigned* out, std::size_t n, unsigned seed, gpuStream_t stream) {
  unsigned blocks = static_cast<unsigned>((n + k_threads - 1) / k_threads);
  fill_kernel<<<blocks, k_threads, 0, stream>>>(out, n, seed);
  return launched();
}

gpuError_t init_sources(void* b, void* c, std::size_t n, int blocks, gpuStream_t stream) {
  init_kernel<<<blocks, k_threads, 0, stream>>>(static_cast<float4*>(b), static_cast<float4*>(c), n);
  return launched();
}

gpuError_t copy(void* dst, const void* src, std::size_t n, int blocks, gpuStream_t stream) {
  copy_kernel<<<blocks, k_threads, 0, stream>>>(static_cast<int4*>(dst), static_cast<const int4*>(src), n);
  return launched();
}

gpuError_t triad(void* a, const void* b, const void* c, std::size_t n, int blocks, gpuStream_t stream) {
  triad_kernel<<<blocks, k_threads, 0, stream>>>(static_cast<float4*>(a), static_cast<const float4*>(b),
                                                 static_cast<const float4*>(c), n);
  return launched();
}

gpuError_t verify(const void* a, std::size_t n, bool triad, unsigned long long* bad, int blocks,
                  gpuStream_t stream) {
  verify_kernel<<<blocks, k_threads, 0, stream>>>(static_cast<const float4*>(a), n, triad, bad);
  return launched();
}

} // namespace probe::kernels
