// driver.dkms-broken, driver.secure-boot: whether the out-of-tree GPU kernel module can load at boot.
#include "checks/amdgpu_rocm.hpp"
#include "checks/common.hpp"
#include "checks/kernel_common.hpp"
#include "checks/registry.hpp"
#include "checks/secure_boot.hpp"
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

namespace {

// This boot's kernel-log lines by which the kernel refused a module for its signature (knowledge
// module_refusals). They name no module: what ties one to a GPU's driver is that driver installed and not
// loaded.
std::vector<std::pair<const KernelEvent*, const ModuleRefusalRow*>> refusals_of(const CheckContext& ctx) {
  std::vector<std::pair<const KernelEvent*, const ModuleRefusalRow*>> out;
  for (const auto& e : ctx.facts.kernel_log.events)
    if (e.kind == KernelEventKind::module_rejected && e.boot == 0)
      if (const auto* row = ctx.kb.health.module_refusal(e.first_line)) out.emplace_back(&e, row);
  return out;
}

// What says that a group's module is installed, with the evidence; `out_of_tree`: built outside the kernel's
// tree (DKMS, akmods, kmod, a vendor module), which Secure Boot refuses unless its key is enrolled.
struct Installed {
  bool any = false, out_of_tree = false;
  std::vector<std::string> evidence;
};

Installed installed_module(const Facts& f, const ModuleGroup& g) {
  Installed in;
  auto entries = entries_of(f, g);
  for (const auto* e : entries)
    in.evidence.push_back(entry_text(*e));
  bool dkms_package = false;
  for (const auto& [name, version] : f.packages.installed)
    if ((g.vendor == Vendor::nvidia &&
         (text::starts_with(name, "nvidia-dkms") || name == "nvidia-kernel-dkms" ||
          text::starts_with(name, "akmod-nvidia") || text::starts_with(name, "kmod-nvidia"))) ||
        (g.vendor == Vendor::amd && name == "amdgpu-dkms")) {
      dkms_package = true;
      in.evidence.push_back(fmt::format("{}: {} {}", f.packages.source, name, version));
      break;
    }
  // A vendor module (NVIDIA's .run, RHEL's kmod) lies in the kernel's extra/ or updates/ folder, or where the
  // .run installer puts it; modinfo names the file even when the module is not loaded.
  bool vendor_module = false;
  if (g.vendor == Vendor::nvidia && f.nvidia.modinfo_filename) {
    const std::string& file = *f.nvidia.modinfo_filename;
    vendor_module = text::contains(file, "/extra/") || text::contains(file, "/updates/") ||
                    text::contains(file, "/kernel/drivers/video/");
    in.evidence.push_back(fmt::format("{}: filename {}", f.nvidia.modinfo_filename.source, file));
  }
  in.out_of_tree = !entries.empty() || dkms_package || vendor_module;
  in.any = in.out_of_tree || (g.vendor == Vendor::nvidia && f.nvidia.modinfo_filename);
  return in;
}

// The key to enroll on this machine (knowledge secure_boot.yaml): akmods' where an akmod package builds the
// module, else dkms's by its installed version and the distribution as dkms names it. The text fills the
// "enroll ..." part of the messages; a framework.conf of the admin's may name another key.
std::string signing_key_advice(const CheckContext& ctx) {
  const Facts& f = ctx.facts;
  bool akmods = std::ranges::any_of(f.packages.installed, [](const auto& p) {
    return p.first == "akmods" || text::starts_with(p.first, "akmod-");
  });
  std::string builder = akmods ? "akmods" : "dkms";
  std::string version = f.packages.version_of(builder).value_or("");
  const ModuleSigningRow* row =
      ctx.kb.module_signing_for(builder, version, f.os.id ? *f.os.id : "", f.os.id_like);
  if (!row)
    return "enroll the certificate of the key that signs the module (DKMS: /etc/dkms/framework.conf's "
           "mok_certificate, else /var/lib/dkms/mok.pub) with mokutil --import";
  if (row->made_by == "none")
    return fmt::format(
        "dkms {} signs no modules here (before 3.0.4, outside Ubuntu): install a newer dkms or "
        "set mok_signing_key and mok_certificate in /etc/dkms/framework.conf, then enroll that "
        "certificate with mokutil --import",
        version);
  return fmt::format("{}{} signs with {} here (unless /etc/dkms/framework.conf names another key): enroll {} "
                     "with mokutil --import",
                     builder, version.empty() ? "" : " " + version, row->key, row->certificate);
}

const ModuleGroup* group_of(Vendor v) {
  auto it =
      std::find_if(std::begin(k_groups), std::end(k_groups), [&](const auto& g) { return g.vendor == v; });
  return it == std::end(k_groups) ? nullptr : &*it;
}

// Secure Boot enforces signatures (mokutil) and shim validates them.
bool enforcing(const Facts& f) {
  return f.boot.secure_boot && *f.boot.secure_boot == "enabled" && !f.boot.shim_validation_disabled;
}

} // namespace

bool module_refused(const CheckContext& ctx, Vendor vendor) {
  const Facts& f = ctx.facts;
  const ModuleGroup* g = group_of(vendor);
  if (!g || f.os.in_container || f.modules.has(g->module)) return false;
  Installed in = installed_module(f, *g);
  return (in.any && !refusals_of(ctx).empty()) || (in.out_of_tree && enforcing(f));
}

void driver_secure_boot(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.os.in_container) return out.skip("", "inside a container: the host's boot decides");
  auto refusals = refusals_of(ctx);
  if (!f.boot.secure_boot && refusals.empty())
    return out.skip("",
                    "mokutil is not installed (or said nothing) and the kernel log shows no module refused "
                    "for its signature");
  std::vector<std::string> base;
  if (f.boot.secure_boot)
    base.push_back(fmt::format("cmd mokutil-sb-state: {}", f.boot.secure_boot_line.empty()
                                                               ? *f.boot.secure_boot
                                                               : f.boot.secure_boot_line));
  if (refusals.empty() && !enforcing(f))
    return out.pass(
        "",
        f.boot.shim_validation_disabled
            ? std::string("Secure Boot is on but shim's validation is disabled: any module may load")
            : fmt::format("Secure Boot is {}: any module may load", *f.boot.secure_boot),
        base);
  bool any = false;
  for (const auto& g : k_groups) {
    if (f.count(g.vendor) == 0) continue;
    any = true;
    Installed in = installed_module(f, g);
    std::vector<std::string> evidence = base;
    evidence.insert(evidence.end(), in.evidence.begin(), in.evidence.end());
    if (f.modules.has(g.module)) {
      out.pass(g.module, fmt::format("{} is loaded: its signature was accepted", g.module), evidence);
      continue;
    }
    if (f.modules.readable) evidence.push_back(fmt::format("{}: {} not loaded", f.modules.source, g.module));
    for (const auto& refusal : refusals) {
      auto lines = event_evidence(*refusal.first);
      evidence.insert(evidence.end(), lines.begin(), lines.end());
    }
    if (!refusals.empty()) {
      // The line names no module: with none of the GPU's installed on the host, it may be another's.
      const auto& [first, row] = refusals.front();
      std::string refused = fmt::format("The kernel refused to load a module this boot ({}; \"{}\", {})",
                                        row->meaning, first->detail, event_when(*first));
      if (in.any)
        out.add(Status::error, g.module,
                fmt::format(
                    "{} and the {} module is installed but not loaded, so the GPU has no driver. "
                    "Installing the driver again does not help: {} and confirm it in MokManager at the "
                    "next boot, or use the distribution's signed driver packages, or turn Secure Boot off.",
                    refused, g.module, signing_key_advice(ctx)),
                evidence);
      else
        out.add(
            Status::warn, g.module,
            fmt::format("{} and no {} module is loaded or installed on this host. If the GPU's driver comes "
                        "from elsewhere (a driver container such as the GPU Operator's, or a module built by "
                        "hand and loaded with insmod), it is the one refused: sign it with a key enrolled "
                        "with mokutil --import, or use the distribution's signed driver packages.",
                        refused, g.module),
            evidence);
      continue;
    }
    if (!in.out_of_tree) { // a refusal here was another module's: this one is not installed, or in-tree
      out.pass(g.module, fmt::format("no out-of-tree build of {} is installed", g.module), evidence);
      continue;
    }
    out.add(
        Status::error, g.module,
        fmt::format("Secure Boot is enabled and the {} module is built out of tree (DKMS, akmods or a vendor "
                    "module), but it is not loaded: the kernel rejects modules not signed by an enrolled key "
                    "(modprobe: \"Key was rejected by service\"): {} (a vendor module: the vendor's key), "
                    "confirm in MokManager at the next boot, so the module loads; or turn Secure Boot off.",
                    g.module, signing_key_advice(ctx)),
        evidence);
  }
  if (!any) out.skip("", "no GPU of a vendor whose driver is built out of tree");
}

} // namespace gpudoctor::checks
