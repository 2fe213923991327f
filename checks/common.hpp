// Small questions several checks ask of the facts.
#pragma once

#include "engine/check.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::checks {

bool nvidia_driver_loaded(const Facts& f);
// The loaded NVIDIA driver's version: kernel module first, then nvidia-smi.
std::optional<Fact<std::string>> nvidia_driver_version(const Facts& f);
bool cuda_toolkit_installed(const Facts& f);
bool rocm_installed(const Facts& f);
// A GPU that compute can use: bound to its vendor's compute driver.
bool has_compute_driver(const Gpu& gpu);
std::size_t usable_gpus(const Facts& f, Vendor v);
// Whether some Python environment holds a PyTorch built for `vendor`'s stack (CUDA or ROCm).
bool any_torch_for(const Facts& f, Vendor vendor);
// The snapshot key nvidia-smi's GPU facts came from ("cmd nvidia-smi-xml", or the text form's), for evidence.
std::string smi_source(const Facts& f);
// Evidence line for a GPU: "gpu0 0000:03:00.0 1002:744c rev c8 (Radeon RX 7900 XTX)".
std::string gpu_evidence(const Gpu& gpu);
// Where the profiles gpudoctor read assign `name` ("/home/ada/.bashrc:12"), in reading order.
std::vector<std::string> profile_sets(const Facts& f, const std::string& name);
// "env NAME=value", and where a profile read sets it ("set in /home/ada/.bashrc:12") or that none does.
std::string env_evidence(const Facts& f, const std::string& name, const std::string& value);
// For a finding about a variable of the environment, a sentence to end its message with: where the profiles
// set it, or that none gpudoctor read does (then it comes from elsewhere, which a profile fix leaves as it
// is). Empty when no profile was read: nothing is known.
std::string where_set(const Facts& f, const std::string& name);
// The subject of a Python environment's results: "python3 (venv: /home/sam/venv/bin/python3)".
std::string python_subject(const PythonEnv& env);
// The words of `python -m pip uninstall -y NAME...` for that environment's interpreter: only names of PyPI's
// form (letters, digits, ".", "_", "-", not "-" first), so no name read from a machine can be an option to
// pip; empty when none is.
std::vector<std::string> pip_uninstall(const PythonEnv& env, const std::vector<std::string>& names);

// ISA family for a gfx_target_version (knowledge isa_family); an unknown one is its own family.
std::string gfx_family(const Knowledge& kb, long long gfx_target_version);
std::string gfx_name(const Knowledge& kb, long long gfx_target_version);
// The ROCm a program gets: what /opt/rocm points at, else ROCM_PATH, else the only (or newest) install.
struct RocmInUse {
  std::string version;
  std::string evidence;
  bool distribution = false; // the OS's own packages (Debian/Ubuntu hipcc, libamdhip64)
};
std::optional<RocmInUse> rocm_in_use(const Facts& f);
// A GPU's gfx target as ROCm names its code objects: lower case, without ":sramecc+:xnack-" features.
std::string gpu_gfx(const Gpu& gpu);
// A Ryzen processor's integrated GPU (a gfx target LLVM lists only as an APU: knowledge gfx.yaml `apu`).
bool integrated_gpu(const Knowledge& kb, const Gpu& gpu);
// An integrated AMD GPU beside a discrete AMD GPU: rocm.igpu-visible's finding, which the checks of
// targets, wheels and multi-GPU settings leave to it (one cause, one finding).
bool integrated_beside_discrete(const CheckContext& ctx, const Gpu& gpu);
// An NVIDIA GPU in MIG mode without MIG devices: CUDA sees nothing on it. gpu.mig's finding, which the
// device-count checks (probe.runtime-devices, torch.no-device) leave to it.
bool mig_without_devices(const Facts& f, const Gpu& gpu);
// The AMD GPUs that are not such an integrated GPU beside a discrete one.
std::size_t discrete_amd_count(const CheckContext& ctx);

// The HSA_OVERRIDE_GFX_VERSION that applies to one AMD GPU: the per-node variable (KFD node id) wins over the
// global one, as in libhsakmt. `wanted` and `real` are gfx_target_version numbers.
struct GpuOverride {
  std::string name, value;
  long long wanted = 0, real = 0;
  // The variable, the GPU, and where its own target was read.
  std::vector<std::string> evidence(const Facts& f, const Gpu& gpu) const;
};
// Empty when none applies, it is malformed or the GPU's own target is unknown; it then says so in `out`.
std::optional<GpuOverride> override_for(const Facts& f, const Gpu& gpu, Results& out);
// The env.hsa-override-* walk: `judge(gpu, override)` for each AMD GPU an override applies to; a pass when no
// override is set, a skip when there is no AMD GPU for one to apply to.
template <class Judge> void for_each_override(const Facts& f, Results& out, Judge judge) {
  if (f.env.hsa_overrides.empty()) return out.pass("", "HSA_OVERRIDE_GFX_VERSION is not set");
  bool any_amd = false;
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::amd) continue;
    any_amd = true;
    if (auto o = override_for(f, gpu, out)) judge(gpu, *o);
  }
  if (!any_amd) out.skip("", "no AMD GPU for the override to apply to");
}

} // namespace gpudoctor::checks
