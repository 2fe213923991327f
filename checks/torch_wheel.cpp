#include "checks/torch_wheel.hpp"

#include "checks/common.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool digits(const std::string& s) {
  return !s.empty() &&
         std::ranges::all_of(s, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// A nightly, release candidate or source build: "2.8.0.dev20250529", "2.1.0a0", "2.4.0rc1".
bool pre_release(const std::string& public_version) {
  return text::contains(public_version, "dev") || text::contains(public_version, "a0") ||
         text::contains(public_version, "rc") || text::contains(public_version, "b0");
}

// "+cu124", "+rocm6.2.4", "+cpu": the labels of download.pytorch.org's indexes.
bool index_label(const std::string& label) {
  if (label == "cpu") return true;
  if (text::starts_with(label, "cu")) return digits(label.substr(2));
  if (!text::starts_with(label, "rocm")) return false;
  auto parts = text::split(label.substr(4), '.', true);
  return parts.size() >= 2 && std::ranges::all_of(parts, digits);
}

} // namespace

WheelIdentity identify_wheel(const TorchBuild& t) {
  WheelIdentity id;
  auto plus = t.version.find('+');
  std::string pub = t.version.substr(0, plus);
  std::string label = plus == std::string::npos ? "" : text::lower(t.version.substr(plus + 1));
  id.release = text::version_prefix(pub, 2);
  if (id.release.find('.') == std::string::npos) {
    id.skip = fmt::format("its version '{}' is not a PyTorch release", t.version);
    return id;
  }
  if (pre_release(pub)) {
    id.skip =
        fmt::format("PyTorch {} is a nightly, pre-release or source build: the table holds the lists of "
                    "releases only",
                    t.version);
    return id;
  }
  if (!label.empty()) {
    if (!index_label(label)) {
      id.skip =
          fmt::format("PyTorch {} is not a wheel of download.pytorch.org (its label '+{}' names a source, "
                      "NGC or vendor build)",
                      t.version, label);
      return id;
    }
    id.variant = label;
    id.how = fmt::format("local label +{}", label);
    return id;
  }
  std::string installer = text::lower(t.installer);
  if (installer == "conda" || text::contains(t.location, "/conda") ||
      text::contains(t.location, "/miniforge") || text::contains(t.location, "/mamba")) {
    id.skip = fmt::format("PyTorch {} is a conda package: its arch list is the channel's, not in the table",
                          t.version);
    return id;
  }
  if (installer.empty() && text::starts_with(t.location, "/usr/")) {
    id.skip = fmt::format(
        "PyTorch {} in {} is a distribution package: its arch list is the distribution's, not in the table",
        t.version, t.location);
    return id;
  }
  // A plain PyPI wheel: its release's default CUDA variant, which version.py names.
  if (t.hip) {
    id.skip =
        fmt::format("PyTorch {} is a ROCm build without an index label (not an official wheel)", t.version);
    return id;
  }
  if (t.cuda) {
    id.variant = fmt::format("cu{}", text::join(text::split(text::version_prefix(*t.cuda, 2), '.'), ""));
    id.how = fmt::format("plain PyPI wheel of {} ({}: cuda = '{}')", id.release, t.source, *t.cuda);
  } else {
    id.variant = "cpu";
    id.how = "plain wheel without CUDA";
  }
  return id;
}

std::string rocm_target(const CheckContext& ctx, const Gpu& gpu, std::string& how) {
  std::string own = gpu_gfx(gpu);
  how.clear();
  Results scratch; // override_for reports problems of the variable; env.hsa-override-* judge those
  auto o = override_for(ctx.facts, gpu, scratch);
  if (!o) return own;
  if (gfx_family(ctx.kb, o->wanted) != gfx_family(ctx.kb, o->real)) return own;
  how = fmt::format("{}={}", o->name, o->value);
  return gfx_name(ctx.kb, o->wanted);
}

} // namespace gpudoctor::checks
