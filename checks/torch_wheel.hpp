// Which official PyTorch wheel is installed (release and index), for the checks that look it up in the wheel
// table (knowledge/torch_wheels.hpp) instead of importing torch.
#pragma once

#include "engine/check.hpp"

#include <string>

namespace gpudoctor::checks {

struct WheelIdentity {
  std::string release; // "2.5"
  std::string variant; // "cu124", "rocm6.2.4", "cpu"; empty when not an official wheel gpudoctor can tell
  std::string how;     // "local label +cu124", "plain PyPI wheel, torch/version.py cuda = '12.4'"
  std::string skip;    // why the variant cannot be told (conda, NGC, distribution, nightly, source build)
};

// From torch/version.py's version and cuda/hip fields and the installer that put it there (dist-info
// INSTALLER): a local label names the index; a plain PyPI wheel carries its release's default CUDA, which its
// version.py states; conda, NGC, distribution, nightly and source builds have no list in the table.
WheelIdentity identify_wheel(const TorchBuild& torch);

// torch.arch-missing from the framework probe's answer (checks/torch_probe.cpp): used when probes ran.
void torch_arch_missing_from_probe(const CheckContext& ctx, Results& out);

// The gfx target ROCm uses on an AMD GPU: HSA_OVERRIDE_GFX_VERSION's when it names a target of the GPU's own
// ISA family (the documented workaround: 10.3.0 on an RX 6700 XT), else the GPU's own. `how` says which.
std::string rocm_target(const CheckContext& ctx, const Gpu& gpu, std::string& how);

} // namespace gpudoctor::checks
