// The plain reference for gpudoctor's host-bandwidth probe: a loop of synchronous cudaMemcpy between pinned
// host memory and device 0, timed with the host clock, best of 20 per direction. Prints one JSON object.
// Build: nvcc -O2 -o pinned_copy pinned_copy.cu
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "pinned_copy: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

double best_gbps(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  double best = 0;
  for (int i = 0; i < 22; ++i) {
    auto start = std::chrono::steady_clock::now();
    check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i >= 2 && bytes / s / 1e9 > best) best = bytes / s / 1e9; // two warm-up copies
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
  void *host = nullptr, *device = nullptr;
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  check(cudaMalloc(&device, bytes), "cudaMalloc");
  double h2d = best_gbps(device, host, bytes, cudaMemcpyHostToDevice);
  double d2h = best_gbps(host, device, bytes, cudaMemcpyDeviceToHost);
  std::printf("{\"bytes\": %zu, \"h2d_gbps\": %.3f, \"d2h_gbps\": %.3f}\n", bytes, h2d, d2h);
  cudaFree(device);
  cudaFreeHost(host);
  return 0;
}
