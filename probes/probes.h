// The probes, one function each; main_host.cpp and main_kernels.cpp dispatch on the probe's name.
// Each prints JSON lines (docs/probes.md) and returns the process exit status.
#pragma once

namespace probe {

int run_devices();          // "devices": what the runtime sees (host binary)
int run_host_bandwidth();   // "host-bandwidth": pinned host <-> device copies (host binary)
int run_p2p();              // "p2p": peer access matrix and pairwise copies (host binary)
int run_alloc();            // "alloc": largest single allocation and chunked total vs free (host binary)
int run_kernel();           // "kernel": launch and verify a kernel on every device (kernels binary)
int run_memory_bandwidth(); // "memory-bandwidth": copy, triad and runtime copy in device memory (kernels
                            // binary)

// Dispatches argv[1] among `table`; usage on stderr and status 2 for anything else.
struct Entry {
  const char* name;
  int (*run)();
};
int dispatch(int argc, char** argv, const Entry* table, int count);

} // namespace probe
