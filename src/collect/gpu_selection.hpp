// Which GPUs `check -i/--gpus` and `probe -i` look at (docs/checks.md, "One GPU at a time"), as dcgmi diag -i
// chooses them. Each word names a GPU by gpudoctor's index ("1", "gpu1"), its PCI address ("0000:41:00.0",
// "41:00.0", nvidia-smi's "00000000:41:00.0"), its NVIDIA UUID ("GPU-…") or the UUID of one of its MIG
// devices
// ("MIG-…"; before driver R470 "MIG-GPU-<uuid>/<gi>/<ci>").
#pragma once

#include "facts/facts.hpp"
#include "system/system_view.hpp"

#include <chrono>
#include <expected>
#include <map>
#include <string>
#include <vector>

namespace gpudoctor {

struct GpuSelection {
  struct Mig {
    int gpu = -1;     // the Gpu::index it is on
    std::string uuid; // as nvidia-smi lists it
  };
  std::vector<std::string> asked; // the words as given
  std::vector<int> gpus;          // Gpu::index of each GPU chosen, ascending
  std::vector<Mig> migs;          // MIG devices chosen by UUID: on their GPU the probes see only these
  bool covers(int index) const;
};

// Resolves the words against the machine's GPUs. Only a MIG UUID of the current form makes it run `nvidia-smi
// -L` (key nvidia-smi-L, which lists the MIG devices of each GPU). The error names the word and the GPUs
// there are.
std::expected<GpuSelection, std::string> select_gpus(SystemView& view, const Facts& facts,
                                                     const std::vector<std::string>& words,
                                                     std::chrono::milliseconds timeout);

// What a probe's environment gets so that its runtime sees the chosen GPUs only (CommandSpec::extra_env and
// unset_env). `none`: the selection holds no GPU of this runtime's vendor, so its probes do not run.
struct VisibleDevices {
  std::map<std::string, std::string> set;
  std::vector<std::string> unset;
  bool none = false;
  void apply(CommandSpec& spec) const {
    spec.extra_env = set;
    spec.unset_env = unset;
  }
};
// CUDA: CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES by UUID (the ordinal in bus order where
// nvidia-smi gave no UUID), MIG devices by theirs. The CUDA programming guide's environment variables.
VisibleDevices cuda_visible_devices(const Facts& facts, const GpuSelection& selection);
// HIP: HIP_VISIBLE_DEVICES by the ordinal ROCr gives the GPU (its KFD topology node's rank among the GPU
// nodes; bus order where the KFD is not known); ROCR_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL and
// CUDA_VISIBLE_DEVICES (HIP honours it too) are removed so that no user setting narrows it again.
VisibleDevices hip_visible_devices(const Facts& facts, const GpuSelection& selection);

} // namespace gpudoctor
