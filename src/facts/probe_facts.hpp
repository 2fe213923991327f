// Facts from the GPU probes (probes/, docs/probes.md): what each probe process did and what its JSON lines
// said, typed. Collected only by `check --probes`, `probe`, `bundle --probes`, or replayed from a snapshot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// A runtime call that failed, as the probe reported it.
struct ProbeError {
  std::string call;    // cudaGetDeviceCount
  std::string name;    // cudaErrorInsufficientDriver
  std::string message; // CUDA driver version is insufficient for CUDA runtime version
  std::optional<long long> code;
  std::optional<int> device;
};

// ProbeRun::not_run of the probes after "devices" when the runtime counted no device.
inline constexpr const char* k_probe_no_device = "the runtime sees no device";

// One probe process.
struct ProbeRun {
  std::string name; // devices, kernel, memory-bandwidth, host-bandwidth, p2p, alloc, torch
  std::string key;  // probe-devices@cuda, python-gpu
  bool run = false; // started (found or not)
  bool found = false;
  bool timed_out = false;
  std::optional<int> exit_code; // empty with found and not timed out: killed by a signal
  long duration_ms = 0;
  long timeout_ms = 0;
  bool ended = false;             // printed its end line
  std::vector<ProbeError> errors; // runtime calls that failed
  std::vector<std::string> notes; // "skipped" lines: why a device was not probed
  int bad_lines = 0;              // lines that are not probe JSON
  std::string stderr_tail;        // last lines of stderr, for evidence
  std::string not_run;            // why it was not started: "no device", "an earlier probe timed out"
  std::string untrusted; // not found because root would not run it: "PATH (/tmp is writable by others)"
  // Killed by a signal, or exited without its end line: the probe (and maybe the driver) broke.
  bool crashed() const { return run && found && !timed_out && (!exit_code || !ended); }
  bool completed() const { return run && found && !timed_out && exit_code && ended; }
};

struct ProbeDevice {
  int index = 0;
  std::string name;
  std::string arch;       // sm_90, gfx90a:sramecc+:xnack-
  std::string pci_bus_id; // normalised to sysfs form: 0000:19:00.0
  std::string uuid;
  std::optional<std::uint64_t> memory_bytes, l2_bytes;
  std::optional<int> multiprocessors, memory_bus_bits;
  std::optional<long long> memory_clock_khz;
  bool integrated = false;
  // Peak memory bandwidth from clock and bus width (2 transfers a clock), GB/s; empty when unknown.
  std::optional<double> peak_gbps() const;
};

struct ProbeKernel {
  int device = 0;
  bool ok = false;
  std::string stage; // image, launch, sync, copy, verify, ...
  std::optional<ProbeError> error;
  long long mismatches = 0;
};

// One timed transfer: memory (copy, triad, memcpy), host (h2d, d2h) or p2p (from -> to).
struct ProbeBandwidth {
  int device = 0; // p2p: the source
  int peer = -1;  // p2p: the destination
  std::string test;
  std::uint64_t bytes = 0;
  int iterations = 0;
  std::optional<double> best_gbps, median_gbps;
  bool verified = false;
  long long mismatches = 0;
};

struct ProbePeerAccess {
  int from = 0, to = 0;
  bool can_access = false;
};

struct ProbeAlloc {
  int device = 0;
  std::uint64_t free_bytes = 0, total_bytes = 0, tried_single_bytes = 0, largest_single_bytes = 0;
  std::uint64_t chunk_bytes = 0, chunked_bytes = 0;
  std::string single_error, chunk_error;
};

// Everything one runtime (CUDA or HIP) said through the compiled probes.
struct BackendProbes {
  std::string backend;     // cuda | hip
  std::string binary;      // the probe program run; empty when none
  std::string how;         // "built with gpudoctor", "compiled now with ...", "cached ...", "recorded"
  std::string unavailable; // why there is no probe program
  std::optional<long long> driver_version, runtime_version; // as the runtime encodes them (13000, 50221153)
  std::string targets;                                      // what the probe binary carries code for
  std::optional<int> device_count;                          // empty: the runtime could not count
  std::optional<ProbeError> count_error;                    // why it could not
  std::vector<ProbeRun> runs;
  std::vector<ProbeDevice> devices;
  std::vector<ProbeKernel> kernels;
  std::vector<ProbeBandwidth> memory, host, p2p;
  std::vector<ProbePeerAccess> peers;
  std::vector<ProbeAlloc> allocs;

  const ProbeRun* run(const std::string& name) const;
  const ProbeDevice* device(int index) const;
  std::string title() const; // "CUDA", "HIP"
  // The probes' runtime is newer than the driver runs (cudaErrorInsufficientDriver with a driver present).
  bool runtime_too_new() const;
};

// "CUDA 13.0" / "HIP 5.2" from a runtime's version number (13000, 50221153); "none" for 0 or nothing.
std::string runtime_version_text(const std::optional<long long>& version);

// What PyTorch said when imported by the python3 in use (the framework probe, key python-gpu).
struct FrameworkDevice {
  int index = 0;
  std::string name, arch, pci_bus_id;
  bool op_ok = false;
  std::string error;
};

struct FrameworkProbe {
  std::string python; // the interpreter run
  ProbeRun run;
  bool imported = false;
  std::string import_error;
  std::string version;
  std::optional<std::string> cuda, hip;
  std::string backend; // cuda | hip | cpu
  std::optional<bool> available;
  std::optional<int> device_count;
  std::vector<std::string> arch_list;
  std::vector<std::string> warnings; // what torch warned while initialising
  std::string init_error;            // an exception from torch.cuda
  std::vector<FrameworkDevice> devices;
};

struct ProbeFacts {
  bool requested = false; // probes were run (live) or replayed (a snapshot holds their output)
  std::vector<BackendProbes> backends;
  std::optional<FrameworkProbe> framework;
  // check/probe --gpus, live: the GPUs (sysfs BDFs) the runtimes were shown; empty: every GPU.
  std::vector<std::string> chosen_gpus;
  const BackendProbes* backend(const std::string& name) const;
};

} // namespace gpudoctor
