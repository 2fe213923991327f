// env.hsa-override-unneeded: HSA_OVERRIDE_GFX_VERSION where the ROCm in use (the installed one, and a ROCm
// build of PyTorch, which carries its own) supports the GPU's own target (knowledge.md §4.1, §4.3, §5.1).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "checks/torch_wheel.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

enum class Support { yes, no, unknown };

// One consumer of the override: a ROCm installation or a ROCm build of PyTorch.
struct Verdict {
  std::string who; // "ROCm 6.4.1 (/opt/rocm-6.4.1)", "PyTorch 2.13.0+rocm7.2"
  Support support = Support::unknown;
  std::string why;
  std::vector<std::string> evidence;
};

bool lists(const std::vector<std::string>& targets, const std::string& target) {
  return std::ranges::find(targets, target) != targets.end();
}

Verdict system_rocm(const Knowledge& kb, const RocmInstall& install, const std::string& target) {
  Verdict v;
  std::string version = *install.version;
  v.who = fmt::format("ROCm {} ({})", version, install.path);
  v.evidence.push_back(fmt::format("{}: {}", install.version.source, version));
  auto row = kb.rocm_release(version);
  if (!row) {
    v.why = fmt::format("gpudoctor has no support table for ROCm {}", version);
    return v;
  }
  v.evidence.push_back(fmt::format("knowledge rocm_releases {}: {}", row->rocm, row->source));
  v.support = lists(row->gfx_targets, target) ? Support::yes : Support::no;
  v.why = v.support == Support::yes
              ? fmt::format("lists {} among its official targets", target)
              : fmt::format("does not list {} ({})", target, text::join(row->gfx_targets, ", "));
  if (row->uncertain) v.why += " (a list gpudoctor's table marks uncertain)";
  return v;
}

Verdict torch_rocm(const Knowledge& kb, const TorchBuild& torch, const std::string& target) {
  Verdict v;
  v.who = fmt::format("PyTorch {}", torch.version);
  v.evidence.push_back(fmt::format("{}: version {}, hip {}", torch.source, torch.version, *torch.hip));
  // torch.version.hip X.Y.<build> is ROCm X.Y.
  std::string rocm = text::version_prefix(*torch.hip, 2);
  WheelIdentity id = identify_wheel(torch);
  if (const TorchWheelRow* wheel = id.variant.empty() ? nullptr : kb.torch_wheel(torch.version, id.variant)) {
    v.evidence.push_back(
        fmt::format("knowledge torch_wheels {} {}: {}", wheel->torch, wheel->variant, wheel->source));
    v.support = lists(wheel->arches, target) ? Support::yes : Support::no;
    v.why = v.support == Support::yes ? fmt::format("ships {} code", target)
                                      : fmt::format("ships no {} code", target);
    return v;
  }
  // Without the wheel's own list: the official targets of the ROCm it was built with, which the official
  // wheels cover (they ship more targets than AMD lists, never fewer, in the lists knowledge.md holds).
  if (auto row = kb.rocm_release(rocm)) {
    v.evidence.push_back(fmt::format("knowledge rocm_releases {}: {}", row->rocm, row->source));
    if (lists(row->gfx_targets, target)) {
      v.support = Support::yes;
      v.why = fmt::format("is built with ROCm {}, which lists {} among its official targets", rocm, target);
      if (row->uncertain) v.why += " (a list gpudoctor's table marks uncertain)";
    } else {
      v.why = fmt::format(
          "is built with ROCm {}, which does not list {}; whether the wheel has code for it is not known",
          rocm, target);
    }
    return v;
  }
  v.why = fmt::format("gpudoctor knows neither its arch list nor ROCm {}", rocm);
  return v;
}

const RocmInstall* installed_rocm(const Facts& f) {
  const RocmInstall* first = nullptr;
  for (const auto& r : f.toolkits.rocm) {
    if (!r.version) continue;
    if (!first) first = &r;
    // The one /opt/rocm points at is the one programs use.
    if (f.toolkits.rocm_default_link) {
      const std::string& link = *f.toolkits.rocm_default_link;
      std::string base = r.path.substr(r.path.find_last_of('/') + 1);
      if (link == r.path || text::ends_with(link, fmt::format("/{}", base))) return &r;
    }
  }
  return first;
}

} // namespace

void env_hsa_override_unneeded(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const RocmInstall* rocm = installed_rocm(f);
  const TorchBuild* torch = nullptr;
  for (const auto& e : f.python.envs)
    if (e.torch && e.torch->hip) {
      torch = &*e.torch;
      break;
    }
  for_each_override(f, out, [&](const Gpu& gpu, const GpuOverride& o) {
    const auto& [name, value, wanted, real] = o;
    std::string target = gfx_name(ctx.kb, real), wanted_name = gfx_name(ctx.kb, wanted);
    std::vector<std::string> evidence = o.evidence(ctx.facts, gpu);
    if (wanted == real)
      return out.add(Status::warn, gpu.subject(),
                     fmt::format("{}={} names GPU {}'s own target, {}: it changes nothing. Unset it.{}", name,
                                 value, gpu.index, target, where_set(f, name)),
                     evidence);
    if (gfx_family(ctx.kb, wanted) != gfx_family(ctx.kb, real) || !ctx.kb.isa_family(wanted) ||
        !ctx.kb.isa_family(real))
      return out.skip(gpu.subject(),
                      fmt::format("{} names another ISA family, or one gpudoctor cannot place (see "
                                  "env.hsa-override-mismatch)",
                                  name));
    std::vector<Verdict> verdicts;
    if (rocm) verdicts.push_back(system_rocm(ctx.kb, *rocm, target));
    if (torch) verdicts.push_back(torch_rocm(ctx.kb, *torch, target));
    if (verdicts.empty())
      return out.skip(gpu.subject(),
                      "no ROCm installation and no ROCm build of PyTorch found: nothing to judge "
                      "the override against");
    std::vector<std::string> parts;
    for (auto& v : verdicts) {
      parts.push_back(fmt::format("{} {}", v.who, v.why));
      evidence.insert(evidence.end(), v.evidence.begin(), v.evidence.end());
    }
    auto is = [&](Support s) {
      return std::ranges::any_of(verdicts, [&](const Verdict& v) { return v.support == s; });
    };
    if (is(Support::no))
      return out.pass(
          gpu.subject(),
          fmt::format("{}={} may be what makes {} work: {}", name, value, target, text::join(parts, "; ")),
          evidence);
    if (is(Support::unknown))
      return out.pass(gpu.subject(),
                      fmt::format("whether {} is needed is not known: {}", name, text::join(parts, "; ")),
                      evidence);
    out.add(
        Status::warn, gpu.subject(),
        fmt::format("{}={} makes ROCm load {} code on GPU {} ({}, {}), although {}: the override only swaps "
                    "the GPU's own kernels for another target's. Unset it.{}",
                    name, value, wanted_name, gpu.index, gpu.display_name(), target,
                    text::join(parts, ", and "), where_set(f, name)),
        evidence);
  });
}

} // namespace gpudoctor::checks
