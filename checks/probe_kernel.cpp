// probe.kernel: a trivial kernel launched on every device must run and write the right values. A missing
// image is named with the runtime's own words (no kernel image / invalid device function /
// hipErrorNoBinaryForGpu), with the targets the probe carries and the device's arch.
#include "checks/common.hpp"
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool no_image(const std::string& error_name) {
  for (const char* name :
       {"cudaErrorNoKernelImageForDevice", "cudaErrorInvalidDeviceFunction", "hipErrorNoBinaryForGpu",
        "hipErrorInvalidDeviceFunction", "hipErrorInvalidImage", "cudaErrorInvalidKernelImage"})
    if (error_name == name) return true;
  return false;
}

std::string targets_of(const BackendProbes& b) {
  return b.targets.empty() ? "(not recorded)" : b.targets;
}

void judge_kernels(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  std::vector<bool> judged(static_cast<std::size_t>(std::max(0, b.device_count.value_or(0))), false);
  for (const auto& k : b.kernels) {
    const std::string subject = device_subject(f, b, k.device);
    const ProbeDevice* d = b.device(k.device);
    const std::string arch = d ? d->arch : "unknown arch";
    if (k.device >= 0 && static_cast<std::size_t>(k.device) < judged.size()) judged[k.device] = true;
    std::vector<std::string> evidence = {run_evidence(run)};
    if (k.ok) {
      out.pass(subject,
               fmt::format("A kernel ran on {} and wrote every value right",
                           d ? fmt::format("{} ({})", d->name, arch) : subject),
               evidence);
      continue;
    }
    if (k.error) evidence.push_back(error_evidence(run, *k.error));
    if (k.error && no_image(k.error->name)) {
      // On AMD an override (global or per node) makes ROCm look for another target's code: unsetting it is
      // then the fix.
      std::vector<HsaOverride> overrides;
      if (b.backend == "hip") overrides = f.env.hsa_overrides;
      for (const auto& o : overrides)
        evidence.push_back(env_evidence(f, o.name, o.value));
      out.add(
          Status::error, subject,
          fmt::format("{}: the runtime found no code for this GPU ({}) in the probe, built for {}. Programs "
                      "built without this target fail the same way: rebuild them for it, or check "
                      "HSA_OVERRIDE_GFX_VERSION on AMD.",
                      k.error->name, arch, targets_of(b)),
          evidence, overrides.empty() ? no_fix : FixChoice());
    } else if (k.error) {
      out.add(
          Status::error, subject,
          fmt::format("A kernel failed at its {} stage: {}. The GPU cannot run compute work; look at dmesg "
                      "for driver errors (NVRM Xid, amdgpu).",
                      k.stage, error_text(*k.error)),
          evidence, no_fix);
    } else {
      evidence.push_back(fmt::format("cmd {}: {} wrong values", run.key, k.mismatches));
      out.add(Status::error, subject,
              fmt::format("A kernel ran but wrote {} wrong values: the GPU computes wrong results (memory or "
                          "hardware fault). Check ECC errors and dmesg, and have the card tested.",
                          k.mismatches),
              evidence, no_fix);
    }
  }
  // A device the probe said nothing about: report its errors.
  for (std::size_t i = 0; i < judged.size(); ++i) {
    if (judged[i]) continue;
    out.add(Status::error, device_subject(f, b, static_cast<int>(i)),
            "The kernel probe could not test this device", failure_evidence(run, static_cast<int>(i)),
            no_fix);
  }
}

} // namespace

void probe_kernel(const CheckContext& ctx, Results& out) {
  for_each_run(ctx.facts, out, "kernel", Status::error, judge_kernels);
}

} // namespace gpudoctor::checks
