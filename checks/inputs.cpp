// The checks that judge with an input gpudoctor reads within a bound (system/input_limits.hpp). On a live
// machine past the bound the input was left out; such a check then skips saying why, instead of judging
// without it (no package list would read as "the Fabric Manager is not installed").
#include "checks/registry.hpp"

#include <algorithm>
#include <iterator>

namespace gpudoctor {

namespace {

// Their facts come from dpkg's or rpm's package list: the driver's and the toolkit's packages, DKMS's,
// the Fabric Manager's, the container toolkit's, the distribution's ROCm (collect/packages.cpp users).
constexpr std::string_view k_need_packages[] = {
    "driver.nvidia-mismatch",
    "driver.dkms-broken",
    "driver.firmware-missing",
    "fabric.manager",
    "container.nvidia-runtime",
    "container.rocm-devices",
    "wsl.driver",
    "stack.both-vendors",
    "rocm.gpu-unsupported",
    "rocm.os-unsupported",
    "rocm.multiple",
    "env.hsa-override-unneeded",
};
// Their facts come from the shell profiles' assignments (collect/stack_paths.cpp's settings).
constexpr std::string_view k_need_profiles[] = {"stack.leftover-paths"};

template <std::size_t N> bool listed(const std::string_view (&ids)[N], std::string_view id) {
  return std::find(std::begin(ids), std::end(ids), id) != std::end(ids);
}

} // namespace

std::string input_skip_reason(std::string_view id, const Facts& facts) {
  if (!facts.packages.over_limit.empty() && listed(k_need_packages, id))
    return facts.packages.over_limit + ": judged only with the package list, so not judged";
  if (!facts.stack_paths.not_read.empty() && listed(k_need_profiles, id))
    return facts.stack_paths.not_read.front() + ": judged only with every shell profile, so not judged";
  return {};
}

} // namespace gpudoctor
