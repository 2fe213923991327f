// env.hsa-override-unneeded: HSA_OVERRIDE_GFX_VERSION where the ROCm in use (the installed one, and a ROCm
// build of PyTorch, which carries its own) supports the GPU's own target (knowledge.md §4.1, §4.3, §5.1).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "checks/torch_wheel.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor::checks {

namespace {

constexpr const char* k_override = "HSA_OVERRIDE_GFX_VERSION";

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
  v.who = "ROCm " + version + " (" + install.path + ")";
  v.evidence.push_back(install.version.source + ": " + version);
  auto row = kb.rocm_release(version);
  if (!row) {
    v.why = "gpudoctor has no support table for ROCm " + version;
    return v;
  }
  v.evidence.push_back("knowledge rocm_releases " + row->rocm + ": " + row->source);
  v.support = lists(row->gfx_targets, target) ? Support::yes : Support::no;
  v.why = v.support == Support::yes
              ? "lists " + target + " among its official targets"
              : "does not list " + target + " (" + text::join(row->gfx_targets, ", ") + ")";
  if (row->uncertain) v.why += " (a list gpudoctor's table marks uncertain)";
  return v;
}

Verdict torch_rocm(const Knowledge& kb, const TorchBuild& torch, const std::string& target) {
  Verdict v;
  v.who = "PyTorch " + torch.version;
  v.evidence.push_back(torch.source + ": version " + torch.version + ", hip " + *torch.hip);
  // torch.version.hip X.Y.<build> is ROCm X.Y.
  std::string rocm = text::version_prefix(*torch.hip, 2);
  WheelIdentity id = identify_wheel(torch);
  if (const TorchWheelRow* wheel = id.variant.empty() ? nullptr : kb.torch_wheel(torch.version, id.variant)) {
    v.evidence.push_back("knowledge torch_wheels " + wheel->torch + " " + wheel->variant + ": " +
                         wheel->source);
    v.support = lists(wheel->arches, target) ? Support::yes : Support::no;
    v.why = v.support == Support::yes ? "ships " + target + " code" : "ships no " + target + " code";
    return v;
  }
  // Without the wheel's own list: the official targets of the ROCm it was built with, which the official
  // wheels cover (they ship more targets than AMD lists, never fewer, in the lists knowledge.md holds).
  if (auto row = kb.rocm_release(rocm)) {
    v.evidence.push_back("knowledge rocm_releases " + row->rocm + ": " + row->source);
    if (lists(row->gfx_targets, target)) {
      v.support = Support::yes;
      v.why = "is built with ROCm " + rocm + ", which lists " + target + " among its official targets";
      if (row->uncertain) v.why += " (a list gpudoctor's table marks uncertain)";
    } else {
      v.why = "is built with ROCm " + rocm + ", which does not list " + target +
              "; whether the wheel has code for it "
              "is not known";
    }
    return v;
  }
  v.why = "gpudoctor knows neither its arch list nor ROCm " + rocm;
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
      if (link == r.path || text::ends_with(link, "/" + base)) return &r;
    }
  }
  return first;
}

} // namespace

void env_hsa_override_unneeded(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (hsa_overrides(f).empty()) return out.pass("", std::string(k_override) + " is not set");
  bool any_amd = false;
  const RocmInstall* rocm = installed_rocm(f);
  const TorchBuild* torch = nullptr;
  for (const auto& e : f.python.envs)
    if (e.torch && e.torch->hip) {
      torch = &*e.torch;
      break;
    }
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::amd) continue;
    any_amd = true;
    auto o = override_for(f, gpu, out);
    if (!o) continue;
    const auto& [name, value, wanted, real] = *o;
    std::string target = gfx_name(ctx.kb, real), wanted_name = gfx_name(ctx.kb, wanted);
    std::vector<std::string> evidence = o->evidence(gpu);
    if (wanted == real) {
      out.add(Status::warn, gpu.subject(),
              name + "=" + value + " names GPU " + std::to_string(gpu.index) + "'s own target, " + target +
                  ": it changes nothing. Unset it.",
              evidence, {"env-unset-hsa-override"});
      continue;
    }
    if (gfx_family(ctx.kb, wanted) != gfx_family(ctx.kb, real) || !ctx.kb.isa_family(wanted) ||
        !ctx.kb.isa_family(real)) {
      out.skip(gpu.subject(), name + " names another ISA family, or one gpudoctor cannot place (see "
                                     "env.hsa-override-mismatch)");
      continue;
    }
    std::vector<Verdict> verdicts;
    if (rocm) verdicts.push_back(system_rocm(ctx.kb, *rocm, target));
    if (torch) verdicts.push_back(torch_rocm(ctx.kb, *torch, target));
    if (verdicts.empty()) {
      out.skip(gpu.subject(), "no ROCm installation and no ROCm build of PyTorch found: nothing to judge the "
                              "override against");
      continue;
    }
    std::vector<std::string> parts;
    for (auto& v : verdicts) {
      parts.push_back(v.who + " " + v.why);
      evidence.insert(evidence.end(), v.evidence.begin(), v.evidence.end());
    }
    auto is = [&](Support s) {
      return std::ranges::any_of(verdicts, [&](const Verdict& v) { return v.support == s; });
    };
    if (is(Support::no)) {
      out.pass(gpu.subject(),
               name + "=" + value + " may be what makes " + target + " work: " + text::join(parts, "; "),
               evidence);
      continue;
    }
    if (is(Support::unknown)) {
      out.pass(gpu.subject(), "whether " + name + " is needed is not known: " + text::join(parts, "; "),
               evidence);
      continue;
    }
    out.add(Status::warn, gpu.subject(),
            name + "=" + value + " makes ROCm load " + wanted_name + " code on GPU " +
                std::to_string(gpu.index) + " (" + gpu.display_name() + ", " + target + "), although " +
                text::join(parts, ", and ") +
                ": the override only swaps the GPU's own kernels for another target's. Unset it.",
            evidence, {"env-unset-hsa-override"});
  }
  if (!any_amd) out.skip("", "no AMD GPU for the override to apply to");
}

} // namespace gpudoctor::checks
