// stack.both-vendors
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string describe_cuda(const Facts& f) {
  for (const auto& c : f.toolkits.cuda)
    if (c.version) return fmt::format("CUDA {} ({})", *c.version, c.path);
  if (f.toolkits.nvcc_version && f.toolkits.nvcc_path)
    return fmt::format("CUDA {} ({})", *f.toolkits.nvcc_version, *f.toolkits.nvcc_path);
  if (cuda_toolkit_installed(f)) return "a CUDA toolkit";
  // No toolkit, only the driver's user-space libraries (libnvidia-compute-*, libcuda1) from packages.
  if (!f.nvidia.libnvidia_ml_versions.empty())
    return fmt::format("the NVIDIA user-space driver {} ({})", f.nvidia.libnvidia_ml_versions.front(),
                       f.packages.source.empty() ? "packages" : f.packages.source);
  return "the NVIDIA stack";
}

std::string describe_rocm(const Facts& f) {
  for (const auto& r : f.toolkits.rocm)
    if (r.version) return fmt::format("ROCm {} ({})", *r.version, r.path);
  return "ROCm";
}

} // namespace

void stack_both_vendors(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool cuda = cuda_toolkit_installed(f) || !f.nvidia.libnvidia_ml_versions.empty();
  bool rocm = rocm_installed(f);
  if (!(cuda && rocm))
    return out.pass("", cuda   ? "only the NVIDIA stack is installed"
                        : rocm ? "only ROCm is installed"
                               : "no GPU stack installed");
  std::vector<std::string> evidence = {describe_cuda(f), describe_rocm(f)};
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  if (nvidia > 0 && amd > 0) return out.pass("", "both stacks installed for GPUs of both vendors", evidence);
  if (nvidia == 0 && amd == 0) {
    out.add(Status::info, "",
            fmt::format("Both {} and {} are installed; there is no GPU here to say which one is needed.",
                        describe_cuda(f), describe_rocm(f)),
            evidence);
    return;
  }
  bool keep_nvidia = nvidia > 0;
  // Ubuntu 24.04's libucx0 (under OpenMPI) depends on libamdhip64-5: such libraries sit in the system's
  // library folder, no path points at them, and purging them would take the packages that need them.
  if (keep_nvidia && !f.toolkits.rocm.empty() &&
      std::all_of(f.toolkits.rocm.begin(), f.toolkits.rocm.end(),
                  [](const RocmInstall& r) { return r.distribution_package && !r.required_by.empty(); })) {
    const RocmInstall& r = f.toolkits.rocm.front();
    std::string users = text::join(r.required_by, ", ");
    evidence.push_back(fmt::format("{} is required by {} ({})", r.path, users, f.packages.source));
    out.add(Status::info, "",
            fmt::format("Only NVIDIA GPUs are present; {} is the distribution's ROCm runtime, installed as a "
                        "dependency of {}. It shadows nothing; keep it, since removing it removes {}.",
                        describe_rocm(f), users, users),
            evidence);
    return;
  }
  out.add(
      Status::warn, "",
      fmt::format("Only {} GPUs are present, but {} is installed too: its libraries and paths can shadow the "
                  "ones you need. Remove it.",
                  keep_nvidia ? "NVIDIA" : "AMD", keep_nvidia ? describe_rocm(f) : describe_cuda(f)),
      evidence, {keep_nvidia ? "purge-rocm" : "purge-nvidia"});
}

} // namespace gpudoctor::checks
