// driver.firmware-missing: firmware the GPU driver asked for and could not load (amdgpu's "Direct firmware
// load for amdgpu/... failed", NVIDIA's GSP firmware), against the amdgpu firmware folder on disk: missing
// there, the distribution's package that carries it; there, an initramfs built before it.
#include "checks/common.hpp"
#include "checks/kernel_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// "amdgpu/gc_12_0_1_pfp.bin" is on disk as itself, .zst or .xz (the kernel tries the compressed names too).
bool on_disk(const FirmwareListing& listing, const std::string& file) {
  std::string name = file.substr(file.find('/') + 1);
  for (const char* suffix : {"", ".zst", ".xz"})
    if (std::find(listing.files.begin(), listing.files.end(), name + suffix) != listing.files.end())
      return true;
  return false;
}

// The packages that carry AMD's firmware here: AMD's own with amdgpu-dkms, else the distribution's.
std::string amd_packages(const CheckContext& ctx, std::vector<std::string>& evidence) {
  const Facts& f = ctx.facts;
  if (f.packages.version_of("amdgpu-dkms")) {
    evidence.push_back(
        fmt::format("{}: amdgpu-dkms {}", f.packages.source, *f.packages.version_of("amdgpu-dkms")));
    return "amdgpu-dkms-firmware (AMD's repository, beside amdgpu-dkms)";
  }
  std::vector<std::string> names;
  for (const auto* row :
       ctx.kb.health.firmware_packages_for("amd", f.os.id.value.value_or(""), f.os.id_like)) {
    evidence.push_back(
        fmt::format("knowledge firmware_packages {} {}: {}", row->os, row->package, row->source));
    if (auto installed = f.packages.version_of(row->package)) {
      // Installed and still without the file: this release's package is older than the GPU.
      evidence.push_back(fmt::format("{}: {} {}", f.packages.source, row->package, *installed));
      names.push_back(
          fmt::format("a newer {} than the installed {} (which predates this GPU: take it from the "
                      "release's backports, or the files from upstream linux-firmware)",
                      row->package, *installed));
      continue;
    }
    names.push_back(row->note.empty() ? row->package : fmt::format("{} ({})", row->package, row->note));
  }
  if (names.empty())
    return "the distribution's linux-firmware package (or the files from upstream linux-firmware)";
  return text::join(names, " or ");
}

} // namespace

void driver_firmware_missing(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  // One result per GPU (and per vendor's kind of firmware): the files, those on disk and those not.
  struct Group {
    std::string subject;
    bool amd = false;
    std::vector<const KernelEvent*> events;
  };
  std::vector<Group> groups;
  for (const auto& e : f.kernel_log.events) {
    if (e.kind != KernelEventKind::firmware_missing || e.boot != 0) continue;
    bool amd = text::starts_with(e.detail, "amdgpu/");
    std::string subject = event_subject(gpu_of_event(f, e, amd ? Vendor::amd : Vendor::nvidia), e);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.subject == subject && g.amd == amd; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{subject, amd, {}});
    it->events.push_back(&e);
  }
  for (const auto& g : groups) {
    std::vector<std::string> evidence, missing, present;
    for (const auto* e : g.events) {
      for (auto& line : event_evidence(*e))
        evidence.push_back(std::move(line));
      (f.firmware.listed && on_disk(f.firmware, e->detail) ? present : missing).push_back(e->detail);
    }
    if (!g.amd) {
      out.add(
          Status::error, g.subject,
          fmt::format("The NVIDIA driver found no {} ({}): GPUs that need it do not come up. Reinstall the "
                      "driver packages of the loaded version (they carry /lib/firmware/nvidia/<version>/), "
                      "then rebuild the initramfs and reboot.",
                      g.events.front()->detail, event_when(*g.events.front())),
          evidence, {"install-nvidia"});
      continue;
    }
    std::string what;
    if (!missing.empty()) {
      std::string where =
          f.firmware.listed ? fmt::format(" ({} lacks them, also as .zst and .xz)", f.firmware.dir) : "";
      if (f.firmware.listed)
        evidence.push_back(fmt::format("{}: missing {}", f.firmware.dir, text::join(missing, ", ")));
      what = fmt::format(
          "Missing{}: {}. Install {}, then rebuild the initramfs (sudo update-initramfs -u -k all, "
          "or sudo dracut --force) and reboot.",
          where, text::join(missing, ", "), amd_packages(ctx, evidence));
    }
    if (!present.empty()) {
      evidence.push_back(fmt::format("{}: has {}", f.firmware.dir, text::join(present, ", ")));
      what +=
          fmt::format("{}On disk now: {}, so the initramfs the kernel booted from was built before they were "
                      "installed: rebuild it (sudo update-initramfs -u -k all, or sudo dracut --force) and "
                      "reboot.",
                      what.empty() ? "" : " ", text::join(present, ", "));
    }
    out.add(
        Status::error, g.subject,
        fmt::format("amdgpu could not load {} firmware file{} this boot, so the GPU does not initialise. {}",
                    g.events.size(), g.events.size() == 1 ? "" : "s", what),
        evidence, {"install-firmware"});
  }
  if (!groups.empty()) return;
  if (!f.kernel_log.read) return out.skip("", kernel_log_skip_message(f));
  if (f.gpus.empty()) return out.skip("", "no GPU");
  out.pass("", fmt::format("{} shows no firmware the GPU drivers could not load", kernel_log_name(f)),
           {f.kernel_log.source});
}

} // namespace gpudoctor::checks
