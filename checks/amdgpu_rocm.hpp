// The running amdgpu against the ROCm user space (driver.amdgpu-rocm), shared with driver.dkms-broken so that
// the two never disagree about a machine.
#pragma once

#include "engine/check.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::checks {

struct DriverPairVerdict {
  Status status = Status::pass; // skip: not judged (why in `message`)
  std::string message;
  std::string summary; // a clause for another check's message ("an untested pair: ...")
  std::vector<std::string> evidence;
  std::string action; // the step, for warn and error
};

// amdgpu-dkms's version read: "1:6.12.12.60402-2187269.24.04" -> kernel base 6.12.12, release 6.4.2, line
// 6.4 (five digits up to ROCm 6.4); "1:6.16.13.30300000-2278356.24.04" -> 30.30.0, line 30.30 (eight).
struct DkmsRelease {
  std::string kernel_base, release, line;
};
std::optional<DkmsRelease> dkms_release(const std::string& package_version);

DriverPairVerdict judge_amdgpu_rocm(const CheckContext& ctx);

} // namespace gpudoctor::checks
