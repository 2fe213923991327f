// What the probe checks share: which PCI GPU a runtime device is, subjects and evidence, what went wrong with
// a probe process, and what a PCIe link carries.
#pragma once

#include "engine/check.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::checks {

// Adds the skip every probe check gives when probes did not run; true when it did.
bool skip_without_probes(const Facts& f, Results& out);

Vendor vendor_of(const BackendProbes& b);
// The PCI GPU with the runtime device's bus id; nullptr when it has none or no GPU matches.
const Gpu* pci_gpu_of(const Facts& f, const std::string& pci_bus_id);
// "gpu0 (0000:19:00.0)" for a runtime device found on the PCI bus, else "CUDA device 0".
// Whether the probes' runtimes were shown this GPU: every GPU, unless --gpus chose some
// (ProbeFacts::chosen_gpus).
bool shown_to_probes(const Facts& f, const Gpu& gpu);
std::string device_subject(const Facts& f, const BackendProbes& b, int index);
// "CUDA runtime", "HIP runtime".
std::string runtime_subject(const BackendProbes& b);

// "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string error_text(const ProbeError& e);
// "cmd probe-devices@cuda: cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is detected".
std::string error_evidence(const ProbeRun& run, const ProbeError& e);
// "cmd probe-kernel@cuda: exit 0 after 812 ms" (or timed out, killed by a signal, not found).
std::string run_evidence(const ProbeRun& run);
// What went wrong with the process itself (not found, crashed, exit status, no end line), with stderr's
// last words; nullopt when it ran to its end. Timeouts are probe.timeout's.
std::optional<std::string> run_trouble(const ProbeRun& run);
// The errors the probe reported about one device (device -1: about none in particular).
std::vector<const ProbeError*> errors_for(const ProbeRun& run, int device);
// Evidence for a device the probe could not measure: how the run ended, then its errors about the device.
std::vector<std::string> failure_evidence(const ProbeRun& run, int device);

// A sysfs link speed's transfer rate per lane: "16.0 GT/s PCIe" -> 16.0; nothing for garbage.
std::optional<double> link_gts(const std::optional<std::string>& speed);
// What a PCIe link carries per direction, in GB/s, before protocol overhead: the sysfs speed ("16.0 GT/s
// PCIe") times the width, with 8b/10b coding up to 5 GT/s and 128b/130b above. Empty when unknown.
std::optional<double> pcie_gbps(const std::optional<std::string>& speed, std::optional<int> width);
// "PCIe 16.0 GT/s x16".
std::string link_text(const std::optional<std::string>& speed, std::optional<int> width);
std::string gbps(double value); // "25.3 GB/s"

// The floors the bandwidth probes are judged against (probe.memory-bandwidth, probe.host-bandwidth), also
// exported as metrics (docs/fleet.md). Each says where it came from, for the evidence.
struct BandwidthFloor {
  double gbps = 0;
  std::string basis; // "the knowledge tables (memory_bandwidth_floor_gbps)", "70 % of the 936 GB/s peak", ...
  bool from_tables = false;
};
// Device memory: the model's floor in the knowledge tables, else 70 % of the peak the runtime's memory clock
// and bus width give; nothing when neither is known.
std::optional<BandwidthFloor> memory_floor(const Gpu* gpu, const ProbeDevice& d);
// Pinned host copies: the model's host floor in the knowledge tables, else 60 % of what the GPU's PCIe link
// carries at its maximum (sysfs); nothing when neither is known.
std::optional<BandwidthFloor> host_floor(const Gpu* gpu);
// Peer to peer from device `from` to `to` of one runtime: half of what the slower of their PCIe links carries
// (NVLink and xGMI pairs are far above it); nothing when a link is unknown.
std::optional<double> p2p_floor(const Facts& f, const BackendProbes& b, int from, int to);

// The device-selection variables a vendor's runtime honours that are set, as evidence:
// "CUDA_VISIBLE_DEVICES=1" (AMD: HIP_, ROCR_, CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL).
std::vector<std::string> visibility_vars(const Facts& f, Vendor v);

// What a probe check judges in one runtime's run of its probe.
using RunJudge = void (*)(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out);
// The skip_without_probes skip when probes did not run; else calls `judge` for each runtime whose probe
// `name` ran to its end. The others are reported here: a skip when it
// was not run or timed out (probe.timeout reports that), `trouble` when the process broke; a runtime that
// sees no device and has no GPU of its vendor on the PCI bus is left out. A skip when nothing was said at
// all.
void for_each_run(const Facts& f, Results& out, const std::string& name, Status trouble, RunJudge judge);

} // namespace gpudoctor::checks
