// The CUDA runtime API the probes use, answered by the mock (mock_core.h). Not NVIDIA's header: only the
// names, with the types reduced to what the probes need.
#pragma once

#include "mock_core.h"

#include <cstddef>

typedef int cudaError_t;
typedef void* cudaStream_t;
typedef void* cudaEvent_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorPeerAccessAlreadyEnabled = 704 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum cudaDeviceAttr { cudaDevAttrMemoryClockRate = 0, cudaDevAttrMaxThreadsPerMultiProcessor = 1 };
enum { cudaHostAllocDefault = 0 };

struct cudaFuncAttributes {
  int maxThreadsPerBlock;
};

struct cudaUUID_t {
  char bytes[16];
};

struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  std::size_t totalGlobalMem;
  int major, minor, multiProcessorCount, l2CacheSize, memoryBusWidth, integrated;
};

inline cudaError_t cudaGetDeviceCount(int* n) {
  return mock::device_count(n);
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  mock::Props m;
  int e = mock::properties(&m, device);
  if (e) return e;
  __builtin_memcpy(p->name, m.name, sizeof p->name);
  __builtin_memcpy(p->uuid.bytes, m.uuid, 16);
  p->totalGlobalMem = m.total;
  p->major = m.major;
  p->minor = m.minor;
  p->multiProcessorCount = m.multiprocessors;
  p->l2CacheSize = m.l2_bytes;
  p->memoryBusWidth = m.bus_bits;
  p->integrated = m.integrated;
  return 0;
}
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
  return mock::attribute(v, a, d);
}
inline cudaError_t cudaDeviceGetPCIBusId(char* out, int len, int d) {
  return mock::pci_bus_id(out, len, d);
}
inline cudaError_t cudaDriverGetVersion(int* v) {
  return mock::driver_version(v);
}
inline cudaError_t cudaRuntimeGetVersion(int* v) {
  return mock::runtime_version(v);
}
inline cudaError_t cudaSetDevice(int d) {
  return mock::set_device(d);
}
inline cudaError_t cudaDeviceSynchronize() {
  return mock::synchronize();
}
inline cudaError_t cudaDeviceCanAccessPeer(int* c, int a, int b) {
  return mock::can_access_peer(c, a, b);
}
inline cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned) {
  return mock::enable_peer(peer);
}
inline cudaError_t cudaMalloc(void** p, std::size_t n) {
  return mock::malloc_device(p, n);
}
inline cudaError_t cudaFree(void* p) {
  return mock::free_device(p);
}
inline cudaError_t cudaHostAlloc(void** p, std::size_t n, unsigned) {
  return mock::malloc_host(p, n);
}
inline cudaError_t cudaFreeHost(void* p) {
  return mock::free_host(p);
}
inline cudaError_t cudaMemGetInfo(std::size_t* f, std::size_t* t) {
  return mock::memory_info(f, t);
}
inline cudaError_t cudaMemcpy(void* d, const void* s, std::size_t n, cudaMemcpyKind k) {
  return mock::copy(d, s, n, k);
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, std::size_t n, cudaMemcpyKind k, cudaStream_t) {
  return mock::copy(d, s, n, k);
}
inline cudaError_t cudaMemcpyPeerAsync(void* d, int dd, const void* s, int sd, std::size_t n, cudaStream_t) {
  return mock::copy_peer(d, dd, s, sd, n);
}
inline cudaError_t cudaMemset(void* p, int v, std::size_t n) {
  return mock::fill_bytes(p, v, n);
}
inline cudaError_t cudaStreamCreate(cudaStream_t* s) {
  return mock::stream_create(s);
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  return mock::stream_destroy(s);
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return mock::synchronize();
}
inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  return mock::event_create(e);
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  return mock::event_destroy(e);
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  return mock::event_record(e);
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return mock::event_synchronize(e);
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  return mock::event_elapsed(ms, a, b);
}
inline cudaError_t cudaGetLastError() {
  return mock::last_error();
}
inline const char* cudaGetErrorName(cudaError_t e) {
  return mock::error_name(e, false);
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return mock::error_string(e, false);
}
