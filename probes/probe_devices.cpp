// "devices": every device the runtime sees, with what identifies it (PCI bus id, UUID) and what the checks
// compare with the PCI bus and the knowledge tables (arch, memory, memory bus).
#include "probe_common.h"
#include "probes.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace probe {

namespace {

constexpr const char* k_name = "devices";

std::string uuid_text(const unsigned char* bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
                bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return buf;
}

std::string arch_of(const gpuDeviceProp& prop) {
#if defined(GPU_HIP)
  return prop.gcnArchName; // "gfx90a:sramecc+:xnack-": the target and its features
#else
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
#endif
}

std::string uuid_of(int device, const gpuDeviceProp& prop) {
#if defined(GPU_HIP)
  (void)prop;
  hipUUID uuid;
  if (hipDeviceGetUuid(&uuid, device) != hipSuccess) return {};
  return uuid_text(reinterpret_cast<const unsigned char*>(uuid.bytes));
#else
  (void)device;
  return "GPU-" + uuid_text(reinterpret_cast<const unsigned char*>(prop.uuid.bytes));
#endif
}

void report(int device) {
  gpuDeviceProp prop{};
  if (!ok(k_name, gpuGetDeviceProperties(&prop, device), GPU_API("GetDeviceProperties"), device)) return;
  Line line(k_name, "device");
  line.num("index", device).str("name", prop.name).str("arch", arch_of(prop));
  line.num("major", prop.major).num("minor", prop.minor);
  char bus_id[32] = {};
  if (gpuDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == gpuSuccess) line.str("pci_bus_id", bus_id);
  std::string uuid = uuid_of(device, prop);
  if (!uuid.empty()) line.str("uuid", uuid);
  line.num("memory_bytes", static_cast<long long>(prop.totalGlobalMem));
  line.num("multiprocessors", prop.multiProcessorCount).num("l2_bytes", prop.l2CacheSize);
  line.num("memory_bus_bits", prop.memoryBusWidth);
  int clock_khz = 0;
  if (gpuDeviceGetAttribute(&clock_khz, gpuDevAttrMemoryClockRate, device) == gpuSuccess && clock_khz > 0)
    line.num("memory_clock_khz", clock_khz);
  line.flag("integrated", prop.integrated != 0);
  line.emit();
}

} // namespace

int run_devices() {
  int count = start(k_name);
  for (int d = 0; d < count; ++d)
    report(d);
  return finish(k_name);
}

} // namespace probe
