// A scripted stand-in for the CUDA and HIP runtimes, so the probes' host code runs without a GPU: the probe
// sources (probes/*.cpp) compile against cuda_runtime.h or hip/hip_runtime_api.h from this folder and print
// exactly what they would print on the machine a scenario file describes (README.md). Device memory up to
// 256 MiB is real; larger allocations are bookkeeping only. Time is virtual: each transfer advances a clock
// by bytes / the scenario's rate, with a small deterministic jitter.
#pragma once

#include <cstddef>

namespace mock {

enum Code : int {
  ok = 0,
  out_of_memory = 2,
  insufficient_driver = 35,
  invalid_device_function = 98,
  no_device = 100,
  invalid_device = 101,
  no_kernel_image = 209,
  peer_unsupported = 217,
  illegal_address = 700,
  peer_already_enabled = 704,
  driver_mismatch = 803,
  unknown = 999,
};

enum Copy { host_to_device = 1, device_to_host = 2, device_to_device = 3 };

struct Props {
  char name[256];
  char arch[256]; // HIP gcnArchName
  int major, minor;
  std::size_t total;
  int multiprocessors, l2_bytes, bus_bits, clock_khz, integrated;
  unsigned char uuid[16];
};

const char* targets(); // GPUDOCTOR_PROBE_TARGETS of the mock programs
const char* error_name(int code, bool hip);
const char* error_string(int code, bool hip);
int last_error();
int driver_version(int* v);
int runtime_version(int* v);
int device_count(int* n);
int properties(Props* p, int device);
int attribute(int* v, int which, int device); // which: 0 memory clock kHz, 1 max threads per multiprocessor
int pci_bus_id(char* out, int len, int device);
int uuid(unsigned char out[16], int device);
int set_device(int device);
int synchronize();
int can_access_peer(int* can, int a, int b);
int enable_peer(int peer);
int malloc_device(void** p, std::size_t bytes);
int free_device(void* p);
int malloc_host(void** p, std::size_t bytes);
int free_host(void* p);
int memory_info(std::size_t* free_bytes, std::size_t* total);
int copy(void* dst, const void* src, std::size_t bytes, int kind);
int copy_peer(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes);
int fill_bytes(void* p, int value, std::size_t bytes);
int stream_create(void** s);
int stream_destroy(void* s);
int event_create(void** e);
int event_destroy(void* e);
int event_record(void* e);
int event_synchronize(void* e);
int event_elapsed(float* ms, void* start, void* stop);

// The kernels of probes/kernels.cu, for mock_kernels.cpp.
double setting(const char* key, double fallback);
int kernel_image();
int kernel_stream(const char* test, std::size_t n); // copy or triad over n 16-byte elements
int kernel_verify(unsigned long long* bad, bool triad);

} // namespace mock
