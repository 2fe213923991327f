// The code official PyTorch wheels carry (checks/knowledge/pytorch_wheels.yaml), and the rule that says
// whether an arch list runs on a GPU. One table and one rule for torch.arch-missing, the framework probe's
// list and torch-reinstall's choice of index.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct TorchWheelRow {
  std::string torch;               // release line "2.5" (every 2.5.x)
  std::string variant;             // wheel index and local label: "cu124", "rocm6.2.4", "cpu"
  std::string cuda;                // "12.4" for CUDA variants, else empty
  std::string rocm;                // "6.2.4" for ROCm variants, else empty
  std::vector<std::string> arches; // as torch.cuda.get_arch_list(): sm_XX, compute_XX (PTX), gfxNNNN
  std::string source;
  bool uncertain = false;
  bool is_cuda() const { return !cuda.empty(); }
  bool is_rocm() const { return !rocm.empty(); }
};

// A compiled extension beside PyTorch (extensions.yaml): where its libraries are, and ROCm support.
struct TorchExtensionRow {
  std::string dist;                 // "flash-attn"
  std::vector<std::string> folders; // "." (the site folder), "bitsandbytes", "torchaudio/lib"
  std::vector<std::string> files;   // in ".": the name prefixes that are its libraries
  std::string rocm;                 // "none", "2.6.2" (first release whose sources build for ROCm), ""
  std::string note;
  std::string source;
  bool uncertain = false;
};

namespace arch_rule {

// Whether one entry of an arch list runs on a GPU of `gpu_arch` ("sm_89", "gfx1100"). CUDA: machine code of
// the same major and a minor not above the GPU's (sm_86 runs on sm_89), PTX (compute_XX) of a capability not
// above the GPU's, which the driver compiles; sm_90a-style code runs only on its own GPU. ROCm: the same gfx
// target (a ":sramecc+:xnack-" feature suffix is ignored).
bool entry_runs_on(const std::string& entry, const std::string& gpu_arch);
bool list_runs_on(const std::vector<std::string>& arches, const std::string& gpu_arch);

} // namespace arch_rule

} // namespace gpudoctor
