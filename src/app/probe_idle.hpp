// `probe --if-idle` (docs/fleet.md, "Probe figures"): the probes take every GPU's memory bandwidth and much
// of its memory for seconds, so the probe unit and a Slurm epilog run none while a GPU is at work.
#pragma once

#include "facts/facts.hpp"

#include <string>
#include <vector>

namespace gpudoctor {

// Above this utilization a GPU with no process listed (a container sees none of the host's) is at work.
inline constexpr int k_busy_percent = 10;

// What keeps each busy GPU busy: "gpu0 (0000:01:00.0): 2 compute processes" (nvidia-smi's compute processes,
// else its utilization, else amdgpu's gpu_busy_percent); empty when every GPU is idle.
std::vector<std::string> busy_gpus(const Facts& f);

} // namespace gpudoctor
