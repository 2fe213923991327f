// wsl.driver, and the checks that make no sense under WSL2. Under WSL2 the GPU belongs to the Windows host:
// its driver's Linux libraries are mounted at /usr/lib/wsl/lib and reached through /dev/dxg; there is no GPU
// on this kernel's PCI bus, no GPU kernel module and no DKMS. NVIDIA's CUDA on WSL User Guide
// (docs.nvidia.com/cuda/wsl-user-guide): no Linux NVIDIA driver may be installed inside the distribution (it
// shadows the Windows one). AMD's ROCm on WSL (rocm.docs.amd.com/projects/radeon, "Install ROCm for WSL"):
// amdgpu-install --usecase=wsl,rocm --no-dkms, the Windows Adrenalin driver providing the GPU.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "engine/check.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpudoctor {

const char* wsl_skip_reason(std::string_view id) {
  static const std::map<std::string_view, const char*> reasons = {
      {"gpu.none", "the GPU is the Windows host's, reached through /dev/dxg, not on this kernel's PCI bus"},
      {"gpu.unknown-model", "no GPU is on this kernel's PCI bus"},
      {"driver.not-bound", "the GPU's kernel driver runs on Windows"},
      {"driver.nouveau", "the GPU's kernel driver runs on Windows"},
      {"driver.nvidia-mismatch",
       "the NVIDIA kernel driver runs on Windows (wsl.driver checks the Linux side)"},
      {"driver.kfd-missing", "the AMD kernel driver runs on Windows: there is no /dev/kfd under WSL2"},
      {"driver.dkms-broken", "WSL2 loads no GPU module: DKMS has nothing to build"},
      {"driver.secure-boot", "WSL2 loads no GPU module"},
      {"pcie.link-degraded", "no GPU is on this kernel's PCI bus"},
      {"pcie.iommu-not-pt", "the IOMMU is Windows' business"},
      {"perm.kfd", "there is no /dev/kfd under WSL2"},
      {"perm.render-node", "GPUs are reached through /dev/dxg, not render nodes"},
      {"perm.nvidia-dev", "there are no /dev/nvidia* nodes under WSL2"},
      {"cuda.no-driver", "the NVIDIA driver is the Windows one (wsl.driver checks it)"},
  };
  auto it = reasons.find(id);
  return it == reasons.end() ? nullptr : it->second;
}

namespace checks {

void wsl_driver(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const HostFacts& h = f.host;
  if (h.wsl_evidence.empty()) return out.skip("", "not WSL2 (the kernel release names no Microsoft kernel)");
  std::vector<std::string> evidence = {h.wsl_evidence};
  if (h.wsl_libs)
    evidence.push_back(fmt::format(
        "/usr/lib/wsl/lib: {}", h.wsl_libs->empty() ? std::string("(empty)") : text::join(*h.wsl_libs, " ")));
  else
    evidence.push_back("/usr/lib/wsl/lib: missing");
  evidence.push_back(fmt::format("{}: {}", paths::dxg, h.dxg ? "present" : "missing"));
  for (const auto& s : h.wsl_shadows)
    evidence.push_back(fmt::format("inside the distribution: {}", s));
  std::vector<std::string> problems;
  if (!h.dxg)
    problems.push_back(
        fmt::format("{} is missing, so WSL2 gives this distribution no GPU (a WSL 1 distribution, an old WSL "
                    "kernel, or a Windows GPU driver without WSL support: run `wsl --update` and install the "
                    "vendor's Windows driver)",
                    paths::dxg));
  bool amd =
      std::ranges::any_of(h.wsl_shadows, [](const std::string& s) { return text::contains(s, "amdgpu"); });
  std::vector<std::string> nvidia;
  for (const auto& s : h.wsl_shadows)
    if (!text::contains(s, "amdgpu")) nvidia.push_back(s);
  if (!nvidia.empty())
    problems.push_back(
        fmt::format("a Linux NVIDIA driver is installed inside the distribution ({}); it shadows the "
                    "Windows driver's libraries in /usr/lib/wsl/lib and CUDA then fails (\"CUDA driver "
                    "version is insufficient\", \"no CUDA-capable device\"). NVIDIA's CUDA on WSL "
                    "guide says to install no Linux driver under WSL: remove it and keep only a "
                    "toolkit (the wsl-ubuntu repository's cuda-toolkit-X-Y)",
                    text::join(nvidia, ", ")));
  if (amd)
    problems.push_back(
        "amdgpu-dkms is installed inside the distribution; WSL2 loads no kernel module, and AMD's "
        "ROCm-on-WSL instructions install with --usecase=wsl,rocm --no-dkms");
  bool cuda_build = any_torch_for(f, Vendor::nvidia);
  bool has_libcuda = h.wsl_libs && std::ranges::find(*h.wsl_libs, "libcuda.so.1") != h.wsl_libs->end();
  if (h.dxg && cuda_build && !has_libcuda)
    problems.push_back(
        "the Windows NVIDIA driver provides no libcuda.so.1 in /usr/lib/wsl/lib for the CUDA build of "
        "PyTorch here (install or update the NVIDIA driver on Windows)");
  if (problems.empty())
    return out.pass("",
                    fmt::format("WSL2 with /dev/dxg{}, and no Linux GPU driver inside the distribution",
                                has_libcuda ? " and the Windows driver's libcuda" : ""),
                    evidence);
  out.add(Status::error, "",
          fmt::format("Under WSL2 the GPU driver is the Windows one: {}.", text::join(problems, "; ")),
          evidence);
}

} // namespace checks
} // namespace gpudoctor
