// rocm.gpu-unsupported, rocm.os-unsupported: the installed ROCm release against AMD's support matrix
// (knowledge rocm.yaml).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "checks/torch_wheel.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string os_name(const OsFacts& os) {
  if (os.pretty_name) return *os.pretty_name;
  std::string name = os.id ? *os.id : "this OS";
  return os.version_id ? fmt::format("{} {}", name, *os.version_id) : name;
}

std::string row_evidence(const RocmReleaseRow& row, const std::string& what) {
  return fmt::format("knowledge rocm.yaml: ROCm {} {} ({}){}", row.rocm, what, row.source,
                     row.uncertain ? " [uncertain]" : "");
}

// gfx1150/gfx1151 (Ryzen AI APUs) are covered by AMD's separate Radeon/Ryzen documentation, not the matrix.
bool apu_target(const std::string& gfx) {
  return gfx == "gfx1150" || gfx == "gfx1151" || gfx == "gfx1152";
}

// Where the GPU's target is in AMD's matrix relative to the release in use: the first newer release that
// lists it (and the first of those the tables are sure of, to install), else the last older one that did.
// Rows are in release order (rocm.yaml).
struct OtherReleases {
  const RocmReleaseRow* first_newer = nullptr;
  const RocmReleaseRow* first_certain_newer = nullptr;
  const RocmReleaseRow* last_older = nullptr;
};

OtherReleases releases_with(const Knowledge& kb, const std::string& gfx, const std::string& in_use) {
  OtherReleases out;
  for (const auto& row : kb.rocm_releases) {
    if (std::ranges::find(row.gfx_targets, gfx) == row.gfx_targets.end()) continue;
    if (text::compare_versions(row.rocm, in_use) > 0) {
      if (!out.first_newer) out.first_newer = &row;
      if (!out.first_certain_newer && !row.uncertain) out.first_certain_newer = &row;
    } else {
      out.last_older = &row;
    }
  }
  return out;
}

// The sentence that says which release to install instead, and whether the fix can do it.
std::string other_release_advice(const OtherReleases& rel, const std::string& gfx, bool& fixable) {
  fixable = false;
  if (rel.first_newer) {
    std::string doubt = rel.first_newer->uncertain
                            ? fmt::format(" (a point release after {}.0; AMD's notes leave unclear which)",
                                          rel.first_newer->rocm)
                            : "";
    if (!rel.first_certain_newer)
      return fmt::format(" The first ROCm release that supports {} is {}{}.", gfx, rel.first_newer->rocm,
                         doubt);
    fixable = true;
    return fmt::format(
        " The first ROCm release that supports {} is {}{}: `gpudoctor fix install-rocm --rocm {}` "
        "installs one that does.",
        gfx, rel.first_newer->rocm, doubt, rel.first_certain_newer->rocm);
  }
  if (rel.last_older)
    return fmt::format(" The last ROCm release that supports {} is {}: AMD's later releases dropped it.", gfx,
                       rel.last_older->rocm);
  return fmt::format(" No ROCm release in gpudoctor's tables (AMD's matrix from 5.7 to 7.2) supports {}.",
                     gfx);
}

} // namespace

void rocm_gpu_unsupported(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.count(Vendor::amd) == 0) return out.skip("", "no AMD GPU");
  auto rocm = rocm_in_use(f);
  if (!rocm) return out.skip("", "no ROCm installed (or its version is unknown)");
  auto row = ctx.kb.rocm_release(rocm->version);
  if (!row)
    return out.skip("", fmt::format("ROCm {}{} is not in the knowledge tables (AMD's matrix from 5.7 to 7.2)",
                                    rocm->version,
                                    rocm->distribution ? " (the distribution's own packages)" : ""));
  std::string targets = text::join(row->gfx_targets, ", ");
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::amd) continue;
    std::string gfx = gpu_gfx(gpu);
    if (gfx.empty()) {
      out.skip(gpu.subject(), "the GPU's gfx target is unknown");
      continue;
    }
    std::vector<std::string> evidence = {fmt::format("{}: {}", gpu_evidence(gpu), gfx), rocm->evidence,
                                         row_evidence(*row, fmt::format("targets: {}", targets))};
    if (std::find(row->gfx_targets.begin(), row->gfx_targets.end(), gfx) != row->gfx_targets.end()) {
      out.pass(gpu.subject(), fmt::format("{} is an official target of ROCm {}", gfx, rocm->version),
               evidence);
      continue;
    }
    if (integrated_beside_discrete(ctx, gpu)) {
      out.skip(
          gpu.subject(),
          fmt::format("{} ({}) is the processor's integrated GPU beside a discrete one: rocm.igpu-visible "
                      "judges it",
                      gpu.display_name(), gfx));
      continue;
    }
    std::string msg = fmt::format("{} ({}) is not among the GPU targets ROCm {} supports on Linux ({})",
                                  gpu.display_name(), gfx, rocm->version, targets);
    if (apu_target(gfx)) {
      out.add(
          Status::info, gpu.subject(),
          fmt::format("{}; AMD covers Ryzen APUs in its separate \"ROCm on Radeon and Ryzen\" documentation, "
                      "which gpudoctor's tables do not hold.",
                      msg),
          evidence);
      continue;
    }
    // The documented workaround: an override to a supported target of the GPU's own ISA family.
    std::string how, as = rocm_target(ctx, gpu, how);
    if (!how.empty() && std::ranges::find(row->gfx_targets, as) != row->gfx_targets.end()) {
      evidence.push_back(env_evidence(ctx.facts, "HSA_OVERRIDE_GFX_VERSION", how.substr(how.find('=') + 1)));
      out.pass(gpu.subject(),
               fmt::format("{} ({}) is not an official target of ROCm {}, but {} makes ROCm run it as {}, a "
                           "supported target of its ISA family (the documented workaround)",
                           gpu.display_name(), gfx, rocm->version, how, as),
               evidence);
      continue;
    }
    msg +=
        ": ROCm's libraries carry no code built for it, so programs fail with \"invalid device function\" or "
        "see no GPU.";
    bool fixable = false;
    OtherReleases rel = releases_with(ctx.kb, gfx, rocm->version);
    std::string advice = other_release_advice(rel, gfx, fixable);
    auto override_it = f.env.all.find("HSA_OVERRIDE_GFX_VERSION");
    if (override_it != f.env.all.end()) {
      msg +=
          fmt::format(" HSA_OVERRIDE_GFX_VERSION={} makes ROCm treat it as another target: that often works "
                      "within one ISA family, without support.",
                      override_it->second);
      evidence.push_back(env_evidence(ctx.facts, "HSA_OVERRIDE_GFX_VERSION", override_it->second));
    }
    msg += advice;
    out.add(Status::warn, gpu.subject(), msg, evidence, fixable ? FixChoice() : no_fix);
    if (fixable)
      out.act(
          Action::command({{"gpudoctor", "fix", "install-rocm", "--rocm", rel.first_certain_newer->rocm}}));
    else if (rel.first_newer)
      out.act(
          Action::step(fmt::format("Install ROCm {} or a later release: AMD's compatibility matrix lists {} "
                                   "from there.",
                                   rel.first_newer->rocm, gfx)));
    else if (rel.last_older)
      out.act(
          Action::step(fmt::format("Install ROCm {}, the last release that supports {}, or use a GPU that "
                                   "a current release lists.",
                                   rel.last_older->rocm, gfx)));
    else
      out.act(
          Action::step("Use a GPU that ROCm lists. On a Radeon of the RDNA families the common, unsupported "
                       "workaround is HSA_OVERRIDE_GFX_VERSION set to a supported target of the same ISA "
                       "family."));
  }
}

void rocm_os_unsupported(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto rocm = rocm_in_use(f);
  if (!rocm) return out.skip("", "no ROCm installed (or its version is unknown)");
  if (rocm->distribution)
    return out.pass(
        "", fmt::format("ROCm {} comes from the distribution's own packages, built for it", rocm->version),
        {rocm->evidence});
  auto row = ctx.kb.rocm_release(rocm->version);
  if (!row)
    return out.skip("", fmt::format("ROCm {} is not in the knowledge tables (AMD's matrix from 5.7 to 7.2)",
                                    rocm->version));
  if (!f.os.id || !f.os.version_id) return out.skip("", "the OS release is unknown (no os-release)");
  std::string id = *f.os.id, version = *f.os.version_id;
  std::vector<std::string> evidence = {fmt::format("{}: ID={} VERSION_ID={}", f.os.id.source, id, version),
                                       rocm->evidence,
                                       row_evidence(*row, fmt::format("OS: {}", text::join(row->os, ", ")))};
  if (Knowledge::rocm_supports_os(*row, id, version))
    return out.pass("", fmt::format("ROCm {} supports {}", rocm->version, os_name(f.os)), evidence);
  // A derivative is not listed by name; its base may be (Linux Mint 21 = Ubuntu 22.04, AlmaLinux = RHEL).
  auto like = [&](const char* base) {
    return std::find(f.os.id_like.begin(), f.os.id_like.end(), base) != f.os.id_like.end();
  };
  std::optional<std::string> base;
  if (like("ubuntu") && f.repos.ubuntu_codename)
    if (auto d = ctx.kb.distro_by_codename("ubuntu", *f.repos.ubuntu_codename))
      if (Knowledge::rocm_supports_os(*row, "ubuntu", d->version))
        base = fmt::format("Ubuntu {}", d->version);
  if (!base && like("rhel") && Knowledge::rocm_supports_os(*row, "rhel", version))
    base = fmt::format("RHEL {}", version);
  if (base)
    return out.add(
        Status::info, "",
        fmt::format("{} is not on ROCm {}'s list, but its base {} is: it usually works, without AMD's "
                    "support.",
                    os_name(f.os), rocm->version, *base),
        evidence);
  out.add(
      Status::warn, "",
      fmt::format("ROCm {} does not support {} (it supports {}): its kernel driver may not build for this "
                  "kernel and its packages may need libraries of another release. Install a ROCm release "
                  "that lists this OS, or an OS it lists.",
                  rocm->version, os_name(f.os), text::join(row->os, ", ")),
      evidence);
  // The newest release of the tables made for this OS, where one is.
  const RocmReleaseRow* fits = nullptr;
  for (const auto& r : ctx.kb.rocm_releases)
    if (Knowledge::rocm_supports_os(r, id, version)) fits = &r;
  out.act(Action::step(
      fits ? fmt::format(
                 "Install ROCm {} (the newest release in gpudoctor's tables that lists {}) in place of {}, "
                 "or move to an OS that ROCm {} lists.",
                 fits->rocm, os_name(f.os), rocm->version, rocm->version)
           : fmt::format(
                 "Move to an OS that ROCm {} lists ({}): no ROCm release in gpudoctor's tables lists {}.",
                 rocm->version, text::join(row->os, ", "), os_name(f.os))));
}

} // namespace gpudoctor::checks
