// cuda.no-driver, cuda.driver-too-old
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

struct ToolkitSeen {
  std::string version;
  std::string evidence;
};

// Every CUDA toolkit version the machine has: installs under /usr/local and the nvcc on PATH.
std::vector<ToolkitSeen> toolkits(const Facts& f) {
  std::vector<ToolkitSeen> out;
  for (const auto& install : f.toolkits.cuda)
    if (install.version)
      out.push_back({*install.version, fmt::format("{}: CUDA {}", install.version.source, *install.version)});
  if (f.toolkits.nvcc_version) {
    bool known = false;
    for (const auto& t : out)
      known = known || t.version.rfind(*f.toolkits.nvcc_version, 0) == 0;
    if (!known)
      out.push_back(
          {*f.toolkits.nvcc_version, fmt::format("cmd nvcc-version: release {}", *f.toolkits.nvcc_version)});
  }
  return out;
}

} // namespace

void cuda_no_driver(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!cuda_toolkit_installed(f)) return out.skip("", "no CUDA toolkit installed");
  auto seen = toolkits(f);
  std::string which =
      seen.empty() ? "A CUDA toolkit" : fmt::format("The CUDA {} toolkit", seen.front().version);
  std::vector<std::string> evidence;
  for (const auto& t : seen)
    evidence.push_back(t.evidence);
  if (nvidia_driver_loaded(f)) {
    auto v = nvidia_driver_version(f);
    return out.pass("", fmt::format("NVIDIA driver {} is loaded", v ? **v : "(version unknown)"), evidence);
  }
  evidence.push_back(f.modules.readable ? fmt::format("{}: missing; no nvidia module in {}",
                                                      paths::nvidia_driver_version, paths::modules)
                                        : fmt::format("{}: missing", paths::nvidia_driver_version));
  if (f.count(Vendor::nvidia) == 0)
    return out.add(Status::info, "",
                   fmt::format("{} is installed but there is no NVIDIA driver (and no NVIDIA GPU): it can "
                               "compile CUDA code but not run it here.",
                               which),
                   evidence);
  out.add(Status::error, "",
          fmt::format("{} is installed and an NVIDIA GPU is present, but no NVIDIA driver is loaded.", which),
          evidence);
}

void cuda_driver_too_old(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto driver = nvidia_driver_version(f);
  if (!driver) return out.skip("", "no NVIDIA driver loaded");
  auto seen = toolkits(f);
  if (seen.empty()) return out.skip("", "no CUDA toolkit installed");
  for (const auto& t : seen) {
    std::string subject = fmt::format("CUDA {}", t.version);
    auto runs = ctx.kb.driver_runs_cuda(**driver, t.version);
    auto row = ctx.kb.min_driver_for_cuda(t.version);
    std::vector<std::string> evidence = {t.evidence, fmt::format("{}: driver {}", driver->source, **driver)};
    if (!runs) {
      out.skip(subject, fmt::format("CUDA {} is not in the knowledge tables", t.version));
      continue;
    }
    if (*runs) {
      out.pass(subject, fmt::format("driver {} runs CUDA {}", **driver, t.version), evidence);
      continue;
    }
    std::string need = row ? fmt::format("driver {} or newer", row->min_driver) : "a newer driver";
    if (row)
      evidence.push_back(
          fmt::format("knowledge cuda.yaml: CUDA {} >= {} ({})", row->cuda, row->min_driver, row->source));
    // An uncertain release row only softens the verdict when no (certain) minor-version compatibility row of
    // the toolkit's major decided it: below that family's minimum nothing of that major runs.
    auto major = text::to_int(text::version_prefix(t.version, 1));
    auto family = major ? ctx.kb.cuda_family(static_cast<int>(*major)) : std::nullopt;
    bool family_decides = family && !family->uncertain;
    if (family)
      evidence.push_back(
          fmt::format("knowledge cuda.yaml: CUDA {}.x (minor-version compatibility) >= {} ({})",
                      family->major, family->min_driver, family->source));
    out.add(row && row->uncertain && !family_decides ? Status::warn : Status::error, subject,
            fmt::format("CUDA {} needs {}; the loaded driver is {}. Programs built with it fail with \"CUDA "
                        "driver version is insufficient\". Upgrade the driver.",
                        t.version, need, **driver),
            evidence);
  }
}

} // namespace gpudoctor::checks
