// What a report of check/probe --gpus says about the GPUs it covers (docs/checks.md, "One GPU at a time").
#pragma once

#include "report/report.hpp"

#include <string>

namespace gpudoctor {

// "gpu1 (0000:41:00.0) of the 4 GPUs (--gpus 1): the per-GPU results of the others are left out"; "" without
// a selection.
std::string gpu_coverage_text(const Report& report);

// {"asked": [...], "gpus": ["gpu1 (0000:41:00.0)"], "mig_devices": [...], "of": 4}; null without a selection.
Json gpu_coverage_json(const Report& report);

} // namespace gpudoctor
