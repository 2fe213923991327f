// "alloc": how much of the memory a device reports free can really be had, in one piece (the largest single
// allocation, found by halving from 95 % of free) and in 1 GiB chunks. Everything is freed before the next
// device. Integrated GPUs share host memory and are not probed (taking it all would starve the host).
#include "probe_common.h"
#include "probes.h"

#include <algorithm>
#include <vector>

namespace probe {

namespace {

constexpr const char* k_name = "alloc";
constexpr std::size_t k_granule = std::size_t(2) << 20;
constexpr int k_search_steps = 10;

std::size_t round_down(std::size_t bytes) {
  return bytes / k_granule * k_granule;
}

bool fits(std::size_t bytes, gpuError_t& error) {
  void* p = nullptr;
  gpuError_t e = gpuMalloc(&p, bytes);
  if (e != gpuSuccess) {
    (void)gpuGetLastError(); // an allocation failure is not sticky; clear it for the next try
    error = e;
    return false;
  }
  (void)gpuFree(p);
  return true;
}

void test(int device) {
  if (!ok(k_name, gpuSetDevice(device), GPU_API("SetDevice"), device)) return;
  gpuDeviceProp prop{};
  if (!ok(k_name, gpuGetDeviceProperties(&prop, device), GPU_API("GetDeviceProperties"), device)) return;
  if (prop.integrated) {
    Line(k_name, "skipped")
        .num("device", device)
        .str("reason", "integrated GPU: its memory is host memory")
        .emit();
    return;
  }
  std::size_t free_bytes = 0, total = 0;
  if (!ok(k_name, gpuMemGetInfo(&free_bytes, &total), GPU_API("MemGetInfo"), device)) return;

  gpuError_t first_error = gpuSuccess;
  std::size_t tried = round_down(free_bytes / 100 * 95);
  std::size_t largest = 0;
  if (tried > 0 && fits(tried, first_error)) {
    largest = tried;
  } else {
    std::size_t lo = 0, hi = tried; // lo fits (or is 0), hi does not
    gpuError_t ignored = gpuSuccess;
    for (int step = 0; step < k_search_steps && hi - lo > k_granule; ++step) {
      std::size_t mid = round_down(lo + (hi - lo) / 2);
      if (mid <= lo) break;
      if (fits(mid, ignored))
        lo = mid;
      else
        hi = mid;
    }
    largest = lo;
  }

  const std::size_t chunk = total >= (std::size_t(16) << 30) ? std::size_t(1) << 30 : std::size_t(256) << 20;
  std::vector<void*> chunks;
  gpuError_t chunk_error = gpuSuccess;
  while (chunks.size() * chunk + chunk <= free_bytes) {
    void* p = nullptr;
    chunk_error = gpuMalloc(&p, chunk);
    if (chunk_error != gpuSuccess) {
      (void)gpuGetLastError();
      break;
    }
    chunks.push_back(p);
  }
  std::size_t chunked = chunks.size() * chunk;
  for (void* p : chunks)
    (void)gpuFree(p);

  Line line(k_name, "alloc");
  line.num("device", device).num("free_bytes", static_cast<long long>(free_bytes));
  line.num("total_bytes", static_cast<long long>(total))
      .num("tried_single_bytes", static_cast<long long>(tried));
  line.num("largest_single_bytes", static_cast<long long>(largest));
  line.num("chunk_bytes", static_cast<long long>(chunk))
      .num("chunked_bytes", static_cast<long long>(chunked));
  if (first_error != gpuSuccess) line.str("single_error", gpuGetErrorName(first_error));
  if (chunk_error != gpuSuccess) line.str("chunk_error", gpuGetErrorName(chunk_error));
  line.emit();
}

} // namespace

int run_alloc() {
  int count = start(k_name);
  for (int d = 0; d < count; ++d)
    test(d);
  return finish(k_name);
}

} // namespace probe
