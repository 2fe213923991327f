// "kernel": on every device, ask for the kernel's image, launch it, and check every value it wrote.
// A missing image ("no kernel image is available", "invalid device function", hipErrorNoBinaryForGpu) is
// reported with the runtime's own name for it, at the stage it appeared.
#include "kernels.h"
#include "probe_common.h"
#include "probes.h"

#include <vector>

namespace probe {

namespace {

constexpr const char* k_name = "kernel";
constexpr std::size_t k_elements = std::size_t(1) << 22; // 16 MiB of results

void failed(int device, const char* stage, gpuError_t e) {
  Line line(k_name, "kernel");
  line.num("device", device).flag("ok", false).str("stage", stage);
  with_error(line, e).emit();
}

void test(int device) {
  gpuError_t e = gpuSetDevice(device);
  if (e != gpuSuccess) return failed(device, "set-device", e);
  if ((e = kernels::image_check()) != gpuSuccess) return failed(device, "image", e);
  unsigned* out = nullptr;
  if ((e = gpuMalloc(reinterpret_cast<void**>(&out), k_elements * sizeof(unsigned))) != gpuSuccess)
    return failed(device, "alloc", e);
  const unsigned seed = 0x9e3779b9u ^ static_cast<unsigned>(device);
  std::vector<unsigned> host(k_elements);
  const char* stage = "launch";
  e = kernels::fill(out, k_elements, seed, nullptr);
  if (e == gpuSuccess) {
    stage = "sync";
    e = gpuDeviceSynchronize();
  }
  if (e == gpuSuccess) {
    stage = "copy";
    e = gpuMemcpy(host.data(), out, k_elements * sizeof(unsigned), gpuMemcpyDeviceToHost);
  }
  (void)gpuFree(out);
  if (e != gpuSuccess) return failed(device, stage, e);
  long long bad = 0, first_bad = -1;
  for (std::size_t i = 0; i < k_elements; ++i)
    if (host[i] != kernels::pattern(static_cast<unsigned>(i), seed)) {
      if (first_bad < 0) first_bad = static_cast<long long>(i);
      ++bad;
    }
  Line line(k_name, "kernel");
  line.num("device", device).flag("ok", bad == 0).num("elements", static_cast<long long>(k_elements));
  line.num("mismatches", bad);
  if (bad) line.str("stage", "verify").num("first_mismatch", first_bad);
  line.emit();
}

} // namespace

int run_kernel() {
  int count = start(k_name);
  for (int d = 0; d < count; ++d)
    test(d);
  return finish(k_name);
}

} // namespace probe
