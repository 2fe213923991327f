// driver.dkms-broken, driver.secure-boot: whether the out-of-tree GPU kernel module can load at boot.
#include "checks/amdgpu_rocm.hpp"
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

struct ModuleGroup {
  Vendor vendor;
  const char* module; // the kernel module: nvidia, amdgpu
  bool (*is_dkms_name)(const std::string&);
};

// Ubuntu's server drivers register as "nvidia-srv"; every NVIDIA DKMS module name starts with "nvidia".
bool nvidia_name(const std::string& m) {
  return text::starts_with(m, "nvidia");
}
bool amdgpu_name(const std::string& m) {
  return m == "amdgpu";
}

const ModuleGroup k_groups[] = {{Vendor::nvidia, "nvidia", nvidia_name},
                                {Vendor::amd, "amdgpu", amdgpu_name}};

std::string entry_text(const DkmsModule& m) {
  std::string s = fmt::format("cmd dkms-status: {}/{}", m.module, m.version);
  if (!m.kernel.empty()) s += fmt::format(", {}", m.kernel);
  if (!m.arch.empty()) s += fmt::format(", {}", m.arch);
  s += fmt::format(": {}", m.state);
  if (!m.detail.empty()) s += fmt::format(" {}", m.detail);
  return s;
}

std::vector<const DkmsModule*> entries_of(const Facts& f, const ModuleGroup& g) {
  std::vector<const DkmsModule*> out;
  for (const auto& m : f.boot.dkms)
    if (g.is_dkms_name(m.module)) out.push_back(&m);
  return out;
}

// The DKMS build of amdgpu sets MODULE_VERSION (/sys/module/amdgpu/version); the kernel's own does not.
bool dkms_amdgpu_loaded(const Facts& f) {
  auto it = f.modules.loaded.find("amdgpu");
  return it != f.modules.loaded.end() && !it->second.empty();
}

} // namespace

void driver_dkms_broken(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.os.in_container) return out.skip("", "inside a container: the host's DKMS builds the modules");
  if (!f.boot.dkms_ran) return out.skip("", "dkms is not installed (or did not answer)");
  if (!f.os.kernel_release) return out.skip("", "the running kernel is unknown");
  const std::string& kernel = *f.os.kernel_release;
  bool any = false;
  for (const auto& g : k_groups) {
    if (f.count(g.vendor) == 0) continue;
    auto entries = entries_of(f, g);
    if (entries.empty()) continue;
    any = true;
    std::vector<std::string> evidence;
    for (const auto* e : entries)
      evidence.push_back(entry_text(*e));
    evidence.push_back(fmt::format("{}: running kernel {}", f.os.kernel_release.source, kernel));
    auto installed = std::find_if(entries.begin(), entries.end(), [&](const DkmsModule* e) {
      return e->kernel == kernel && text::starts_with(e->state, "installed");
    });
    // amdgpu's verdict against the ROCm in use (driver.amdgpu-rocm), so that this check never calls fine a
    // driver that one finds untested or incompatible.
    DriverPairVerdict pair =
        g.vendor == Vendor::amd ? judge_amdgpu_rocm(ctx) : DriverPairVerdict{Status::skip};
    bool pair_bad = pair.status == Status::warn || pair.status == Status::error;
    if (installed != entries.end()) {
      out.pass(g.module,
               fmt::format("{} {} is installed for the running kernel {}{}", (*installed)->module,
                           (*installed)->version, kernel,
                           pair_bad ? fmt::format(" (but {}: driver.amdgpu-rocm)", pair.summary) : ""),
               evidence);
      continue;
    }
    std::string what;
    auto for_kernel = std::find_if(entries.begin(), entries.end(),
                                   [&](const DkmsModule* e) { return e->kernel == kernel; });
    if (for_kernel != entries.end()) {
      what = fmt::format("is only {} for the running kernel {}, not installed", (*for_kernel)->state, kernel);
    } else {
      std::vector<std::string> kernels;
      for (const auto* e : entries)
        if (!e->kernel.empty() && std::find(kernels.begin(), kernels.end(), e->kernel) == kernels.end())
          kernels.push_back(e->kernel);
      what = kernels.empty() ? "was added to DKMS but never built"
                             : fmt::format("is built for {} but not for the running kernel {}",
                                           text::join(kernels, ", "), kernel);
    }
    for (const auto& m : f.boot.dkms_messages)
      evidence.push_back(fmt::format("cmd dkms-status: {}", m));
    std::string name = fmt::format("{} {}", entries.front()->module, entries.front()->version);
    bool loaded = f.modules.has(g.module);
    bool other_source = loaded && (g.vendor == Vendor::nvidia || !dkms_amdgpu_loaded(f));
    if (f.modules.readable)
      evidence.push_back(
          fmt::format("{}: {} {}", f.modules.source, g.module, loaded ? "loaded" : "not loaded"));
    if (other_source) {
      std::string from =
          g.vendor == Vendor::amd
              ? "the kernel's own amdgpu is in use instead of amdgpu-dkms"
              : fmt::format("a {} module from elsewhere (a prebuilt package) is loaded", g.module);
      std::string works = pair_bad ? fmt::format(", which is {} (driver.amdgpu-rocm)", pair.summary)
                                   : std::string(", so the GPU works for now");
      out.add(Status::warn, g.module,
              fmt::format("The DKMS module {} {}; {}{}, and DKMS is not keeping the driver in step with the "
                          "kernel. Install the running kernel's headers and rebuild (dkms autoinstall), or "
                          "remove the stale DKMS module.",
                          name, what, from, works),
              evidence);
      continue;
    }
    out.add(
        Status::error, g.module,
        fmt::format("The DKMS module {} {}, so no {} module can load and the GPU is unusable. Install the "
                    "headers of the running kernel (linux-headers-{}) and rebuild with dkms autoinstall; a "
                    "failed build leaves its log under /var/lib/dkms.",
                    name, what, g.module, kernel),
        evidence);
  }
  if (!any) out.pass("", "DKMS manages no GPU module of the GPUs here");
}

void driver_secure_boot(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.os.in_container) return out.skip("", "inside a container: the host's boot decides");
  if (!f.boot.secure_boot) return out.skip("", "mokutil is not installed (or said nothing)");
  std::vector<std::string> base = {fmt::format("cmd mokutil-sb-state: {}", f.boot.secure_boot_line.empty()
                                                                               ? *f.boot.secure_boot
                                                                               : f.boot.secure_boot_line)};
  if (*f.boot.secure_boot != "enabled")
    return out.pass("", fmt::format("Secure Boot is {}: any module may load", *f.boot.secure_boot), base);
  if (f.boot.shim_validation_disabled)
    return out.pass("", "Secure Boot is on but shim's validation is disabled: any module may load", base);
  bool any = false;
  for (const auto& g : k_groups) {
    if (f.count(g.vendor) == 0) continue;
    any = true;
    auto entries = entries_of(f, g);
    std::vector<std::string> evidence = base;
    for (const auto* e : entries)
      evidence.push_back(entry_text(*e));
    std::optional<std::string> dkms_package;
    for (const auto& [name, version] : f.packages.installed)
      if ((g.vendor == Vendor::nvidia &&
           (text::starts_with(name, "nvidia-dkms") || name == "nvidia-kernel-dkms" ||
            text::starts_with(name, "akmod-nvidia") || text::starts_with(name, "kmod-nvidia"))) ||
          (g.vendor == Vendor::amd && name == "amdgpu-dkms")) {
        dkms_package = fmt::format("{} {}", name, version);
        evidence.push_back(fmt::format("{}: {}", f.packages.source, *dkms_package));
        break;
      }
    // A vendor module (NVIDIA's .run, RHEL's kmod) lies in the kernel's extra/ or updates/ folder, or where
    // the .run installer puts it; modinfo names the file even when the module is not loaded.
    bool vendor_module = false;
    if (g.vendor == Vendor::nvidia && f.nvidia.modinfo_filename) {
      const std::string& file = *f.nvidia.modinfo_filename;
      vendor_module = text::contains(file, "/extra/") || text::contains(file, "/updates/") ||
                      text::contains(file, "/kernel/drivers/video/");
      if (vendor_module)
        evidence.push_back(fmt::format("{}: filename {}", f.nvidia.modinfo_filename.source, file));
    }
    bool out_of_tree = !entries.empty() || dkms_package || vendor_module;
    bool loaded = f.modules.has(g.module);
    if (loaded) {
      out.pass(g.module, fmt::format("{} is loaded: its signature was accepted", g.module), evidence);
      continue;
    }
    if (!out_of_tree) {
      out.pass(g.module, fmt::format("no out-of-tree build of {} is installed", g.module), evidence);
      continue;
    }
    if (f.modules.readable) evidence.push_back(fmt::format("{}: {} not loaded", f.modules.source, g.module));
    out.add(
        Status::error, g.module,
        fmt::format("Secure Boot is enabled and the {} module is built out of tree (DKMS, akmods or a vendor "
                    "module), but it is not loaded: the kernel rejects modules not signed by an enrolled key "
                    "(modprobe: \"Key was rejected by service\"). Enroll the key that signs it (DKMS: "
                    "/var/lib/dkms/mok.pub; akmods: /etc/pki/akmods/certs/public_key.der; a vendor module: "
                    "the vendor's key) with mokutil --import, confirm in MokManager at the next boot, so the "
                    "module loads; or turn Secure Boot off.",
                    g.module),
        evidence);
  }
  if (!any) out.skip("", "no GPU of a vendor whose driver is built out of tree");
}

} // namespace gpudoctor::checks
