// The HIP runtime API the probes use, answered by the mock (mock_core.h). Not AMD's header: only the
// names, with the types reduced to what the probes need.
#pragma once

#include "mock_core.h"

#include <cstddef>

typedef int hipError_t;
typedef void* hipStream_t;
typedef void* hipEvent_t;
enum { hipSuccess = 0, hipErrorOutOfMemory = 2, hipErrorPeerAccessAlreadyEnabled = 704 };
enum hipMemcpyKind { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2, hipMemcpyDeviceToDevice = 3 };
enum hipDeviceAttribute_t {
  hipDeviceAttributeMemoryClockRate = 0,
  hipDeviceAttributeMaxThreadsPerMultiProcessor = 1
};
enum { hipHostMallocDefault = 0 };

struct hipFuncAttributes {
  int maxThreadsPerBlock;
};

struct hipUUID {
  char bytes[16];
};

struct hipDeviceProp_t {
  char name[256];
  char gcnArchName[256];
  std::size_t totalGlobalMem;
  int major, minor, multiProcessorCount, l2CacheSize, memoryBusWidth, integrated;
};

inline hipError_t hipGetDeviceCount(int* n) {
  return mock::device_count(n);
}
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  mock::Props m;
  int e = mock::properties(&m, device);
  if (e) return e;
  __builtin_memcpy(p->name, m.name, sizeof p->name);
  __builtin_memcpy(p->gcnArchName, m.arch, sizeof p->gcnArchName);
  p->totalGlobalMem = m.total;
  p->major = m.major;
  p->minor = m.minor;
  p->multiProcessorCount = m.multiprocessors;
  p->l2CacheSize = m.l2_bytes;
  p->memoryBusWidth = m.bus_bits;
  p->integrated = m.integrated;
  return 0;
}
inline hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t a, int d) {
  return mock::attribute(v, a, d);
}
inline hipError_t hipDeviceGetPCIBusId(char* out, int len, int d) {
  return mock::pci_bus_id(out, len, d);
}
inline hipError_t hipDriverGetVersion(int* v) {
  return mock::driver_version(v);
}
inline hipError_t hipRuntimeGetVersion(int* v) {
  return mock::runtime_version(v);
}
inline hipError_t hipSetDevice(int d) {
  return mock::set_device(d);
}
inline hipError_t hipDeviceSynchronize() {
  return mock::synchronize();
}
inline hipError_t hipDeviceCanAccessPeer(int* c, int a, int b) {
  return mock::can_access_peer(c, a, b);
}
inline hipError_t hipDeviceEnablePeerAccess(int peer, unsigned) {
  return mock::enable_peer(peer);
}
inline hipError_t hipMalloc(void** p, std::size_t n) {
  return mock::malloc_device(p, n);
}
inline hipError_t hipFree(void* p) {
  return mock::free_device(p);
}
inline hipError_t hipHostMalloc(void** p, std::size_t n, unsigned) {
  return mock::malloc_host(p, n);
}
inline hipError_t hipHostFree(void* p) {
  return mock::free_host(p);
}
inline hipError_t hipMemGetInfo(std::size_t* f, std::size_t* t) {
  return mock::memory_info(f, t);
}
inline hipError_t hipMemcpy(void* d, const void* s, std::size_t n, hipMemcpyKind k) {
  return mock::copy(d, s, n, k);
}
inline hipError_t hipMemcpyAsync(void* d, const void* s, std::size_t n, hipMemcpyKind k, hipStream_t) {
  return mock::copy(d, s, n, k);
}
inline hipError_t hipMemcpyPeerAsync(void* d, int dd, const void* s, int sd, std::size_t n, hipStream_t) {
  return mock::copy_peer(d, dd, s, sd, n);
}
inline hipError_t hipMemset(void* p, int v, std::size_t n) {
  return mock::fill_bytes(p, v, n);
}
inline hipError_t hipStreamCreate(hipStream_t* s) {
  return mock::stream_create(s);
}
inline hipError_t hipStreamDestroy(hipStream_t s) {
  return mock::stream_destroy(s);
}
inline hipError_t hipStreamSynchronize(hipStream_t) {
  return mock::synchronize();
}
inline hipError_t hipEventCreate(hipEvent_t* e) {
  return mock::event_create(e);
}
inline hipError_t hipEventDestroy(hipEvent_t e) {
  return mock::event_destroy(e);
}
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t) {
  return mock::event_record(e);
}
inline hipError_t hipEventSynchronize(hipEvent_t e) {
  return mock::event_synchronize(e);
}
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) {
  return mock::event_elapsed(ms, a, b);
}
inline hipError_t hipGetLastError() {
  return mock::last_error();
}
inline const char* hipGetErrorName(hipError_t e) {
  return mock::error_name(e, true);
}
inline const char* hipGetErrorString(hipError_t e) {
  return mock::error_string(e, true);
}
inline hipError_t hipDeviceGetUuid(hipUUID* u, int d) {
  return mock::uuid(reinterpret_cast<unsigned char*>(u->bytes), d);
}
