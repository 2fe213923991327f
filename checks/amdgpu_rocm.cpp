// driver.amdgpu-rocm: the running amdgpu (AMD's amdgpu-dkms, or the kernel's own) against the installed ROCm,
// by AMD's user and kernel-space support matrix and its kernels per distribution (knowledge
// amdgpu_driver.yaml).
#include "checks/amdgpu_rocm.hpp"

#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::optional<int> number(const std::string& digits, std::size_t at, std::size_t n) {
  return text::to_int(digits.substr(at, n)).transform([](long long v) { return static_cast<int>(v); });
}

// "6.8" matches 6.8.0-60-generic; "5.14.0-570" matches 5.14.0-570.12.1.el9_6.x86_64.
bool kernel_matches(const std::string& listed, const std::string& running) {
  if (!text::starts_with(running, listed)) return false;
  if (running.size() == listed.size()) return true;
  char next = running[listed.size()];
  return next == '.' || next == '-' || next == '+' || next == '_';
}

// The runtime's own word (ROCR-Runtime's amd_topology.cpp prints it), quoted by rocminfo's failure.
const char* k_incompatible = "Incompatible kernel and userspace";

DriverPairVerdict skip(std::string why) {
  return {Status::skip, std::move(why), "", {}, ""};
}

DriverPairVerdict judge_dkms(const CheckContext& ctx, const RocmInUse& rocm, const DkmsRelease& d,
                             std::vector<std::string> evidence) {
  const auto& rows = ctx.kb.amdgpu_driver_releases;
  auto row = std::ranges::find(rows, d.line, &AmdgpuDriverRow::driver);
  if (row == rows.end())
    return skip(fmt::format("AMD GPU Driver {} is not in gpudoctor's tables (AMD's matrix from 5.5 to 31.50)",
                            d.release));
  std::string line = text::version_prefix(rocm.version, 2);
  evidence.push_back(fmt::format("knowledge amdgpu_driver.yaml: driver {} supports ROCm {} ({})", row->driver,
                                 text::join(row->rocm, ", "), row->source));
  if (std::ranges::find(row->rocm, line) != row->rocm.end())
    return {
        Status::pass,
        fmt::format("AMD GPU Driver {} (amdgpu-dkms) is supported with ROCm {} (AMD's user and kernel-space "
                    "support matrix)",
                    d.release, rocm.version),
        "", std::move(evidence), ""};
  return {
      Status::warn,
      fmt::format("The running amdgpu is AMD GPU Driver {} (amdgpu-dkms), which AMD supports with ROCm {}, "
                  "and this machine runs ROCm {}: an untested pair, not necessarily broken. Programs may "
                  "fail in the runtime with errors that name no driver.",
                  d.release, text::join(row->rocm, ", "), rocm.version),
      fmt::format("an untested pair: AMD GPU Driver {} with ROCm {}", d.release, rocm.version),
      std::move(evidence),
      fmt::format("Install the amdgpu-dkms of ROCm {} (AMD's repository repo.radeon.com/amdgpu, the release "
                  "its install guide names), or a ROCm release the driver {} supports ({}); then reboot.",
                  line, d.line, text::join(row->rocm, ", "))};
}

DriverPairVerdict judge_inbox(const CheckContext& ctx, const RocmInUse& rocm,
                              std::vector<std::string> evidence) {
  const Facts& f = ctx.facts;
  if (rocm.distribution)
    return {Status::pass,
            fmt::format("the kernel's own amdgpu with the distribution's own ROCm {} (built for its kernel)",
                        rocm.version),
            "", std::move(evidence), ""};
  if (!f.os.kernel_release) return skip("the running kernel is unknown");
  std::string line = text::version_prefix(rocm.version, 2);
  const RocmInboxKernelRow* row = nullptr;
  bool release_known = false;
  for (const auto& r : ctx.kb.rocm_inbox_kernels) {
    if (r.rocm != line) continue;
    release_known = true;
    if (f.os.id && f.os.version_id && Knowledge::os_entry_matches(r.os, *f.os.id, *f.os.version_id)) row = &r;
  }
  if (!release_known)
    return skip(
        fmt::format("the kernel's own amdgpu is in use, and AMD's list of kernels for ROCm {} is not in "
                    "gpudoctor's tables (ROCm 6.3 and 7.0 are)",
                    line));
  if (!row)
    return skip(
        fmt::format("AMD lists no kernel for ROCm {} on this OS (rocm.os-unsupported judges the OS)", line));
  const std::string& kernel = *f.os.kernel_release;
  evidence.push_back(fmt::format("{}: kernel {}", f.os.kernel_release.source, kernel));
  evidence.push_back(fmt::format("knowledge amdgpu_driver.yaml: ROCm {} on {}: kernels {} ({})", row->rocm,
                                 row->os, text::join(row->kernels, ", "), row->source));
  if (std::ranges::any_of(row->kernels, [&](const std::string& k) { return kernel_matches(k, kernel); }))
    return {Status::pass,
            fmt::format("the kernel's own amdgpu of {} is one AMD lists for ROCm {} on {}", kernel,
                        rocm.version, row->os),
            "", std::move(evidence), ""};
  return {
      Status::warn,
      fmt::format("The kernel's own amdgpu of {} runs ROCm {}, and AMD lists only the kernels {} for ROCm {} "
                  "on {}: an untested pair, not necessarily broken.",
                  kernel, rocm.version, text::join(row->kernels, ", "), line, row->os),
      fmt::format("an untested pair: the kernel's own amdgpu of {} with ROCm {}", kernel, rocm.version),
      std::move(evidence),
      fmt::format("Boot a kernel AMD lists for ROCm {} on this OS ({}), or install AMD's amdgpu-dkms of ROCm "
                  "{} (amdgpu-install --usecase=dkms) and reboot.",
                  line, text::join(row->kernels, ", "), line)};
}

} // namespace

std::optional<DkmsRelease> dkms_release(const std::string& package_version) {
  std::string v = package_version.substr(
      package_version.find(':') == std::string::npos ? 0 : package_version.find(':') + 1);
  v = v.substr(0, v.find('-'));
  auto dot = v.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string digits = v.substr(dot + 1);
  if (!std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  std::optional<int> major, minor, patch;
  if (digits.size() == 5) {
    major = number(digits, 0, 1), minor = number(digits, 1, 2), patch = number(digits, 3, 2);
  } else if (digits.size() == 8) {
    major = number(digits, 0, 2), minor = number(digits, 2, 2), patch = number(digits, 4, 2);
  }
  if (!major || !minor || !patch) return std::nullopt;
  return DkmsRelease{v.substr(0, dot), fmt::format("{}.{}.{}", *major, *minor, *patch),
                     fmt::format("{}.{}", *major, *minor)};
}

DriverPairVerdict judge_amdgpu_rocm(const CheckContext& ctx) {
  const Facts& f = ctx.facts;
  if (f.count(Vendor::amd) == 0) return skip("no AMD GPU");
  if (f.os.in_container) return skip("in a container: the host's kernel holds the amdgpu driver");
  if (!f.modules.has("amdgpu")) return skip("amdgpu is not loaded");
  auto rocm = rocm_in_use(f);
  if (!rocm) return skip("no ROCm installed (or its version is unknown)");
  std::vector<std::string> evidence = {rocm->evidence};
  for (const auto& t : f.tools)
    if (t.key == "rocminfo" && text::contains(t.failure, k_incompatible))
      return {
          Status::error,
          fmt::format("The ROCm runtime itself says the amdgpu kernel driver is incompatible with ROCm {} "
                      "(\"{}\"): the GPUs it names are not used.",
                      rocm->version, t.failure),
          fmt::format("the ROCm runtime calls the driver incompatible with ROCm {}", rocm->version),
          {rocm->evidence, fmt::format("cmd rocminfo: {}", t.failure)},
          fmt::format("Install the amdgpu-dkms of ROCm {} (or a newer kernel) and reboot.",
                      text::version_prefix(rocm->version, 2))};
  auto package = f.packages.version_of("amdgpu-dkms");
  const auto& loaded = f.amd.amdgpu_module_version;
  if (!loaded) {
    if (package)
      evidence.push_back(
          fmt::format("{}: amdgpu-dkms {} installed, but the loaded amdgpu has no version file "
                      "(the kernel's own)",
                      f.packages.source, *package));
    return judge_inbox(ctx, *rocm, std::move(evidence));
  }
  evidence.push_back(fmt::format("{}: {}", loaded.source, *loaded));
  auto d = package ? dkms_release(*package) : std::nullopt;
  if (!d)
    return skip(fmt::format("the loaded amdgpu {} is a DKMS build whose release gpudoctor cannot tell (no "
                            "amdgpu-dkms package version it reads)",
                            *loaded));
  evidence.push_back(
      fmt::format("{}: amdgpu-dkms {} (AMD GPU Driver {})", f.packages.source, *package, d->release));
  if (d->kernel_base != *loaded)
    return skip(
        fmt::format("the loaded amdgpu {} is not the installed amdgpu-dkms {} (a reboot loads that one)",
                    *loaded, d->kernel_base));
  return judge_dkms(ctx, *rocm, *d, std::move(evidence));
}

void driver_amdgpu_rocm(const CheckContext& ctx, Results& out) {
  DriverPairVerdict v = judge_amdgpu_rocm(ctx);
  if (v.status == Status::skip) return out.skip("", v.message);
  if (v.status == Status::pass) return out.pass("", v.message, v.evidence);
  out.add(v.status, "", v.message, v.evidence, no_fix);
  out.act(Action::step(v.action));
}

} // namespace gpudoctor::checks
