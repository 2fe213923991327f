// env.hsa-override-invalid, env.hsa-override-mismatch
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

namespace gpudoctor::checks {

namespace {

constexpr const char* k_override = "HSA_OVERRIDE_GFX_VERSION";

} // namespace

void env_hsa_override_invalid(const CheckContext& ctx, Results& out) {
  auto vars = hsa_overrides(ctx.facts);
  if (vars.empty()) return out.pass("", k_override + std::string(" is not set"));
  // Without an AMD GPU nothing reads it now: a leftover worth removing, not a broken stack.
  bool amd = ctx.facts.count(Vendor::amd) > 0;
  for (const auto& [name, value] : vars) {
    if (parse_hsa_override(value)) {
      out.pass(name, name + "=" + value + " is well formed", {env_evidence(name, value)});
      continue;
    }
    out.add(amd ? Status::error : Status::warn, name,
            name + "=\"" + value +
                "\" is not three decimal numbers major.minor.stepping (like 10.3.0 or "
                "11.0.0): ROCm refuses to start (\"HSA_OVERRIDE_GFX_VERSION " +
                value + " is invalid\")" + (amd ? "" : " if it ever runs here") +
                ". Unset it, or write it as major.minor.stepping.",
            {env_evidence(name, value)}, {"env-unset-hsa-override"});
  }
}

void env_hsa_override_mismatch(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto vars = hsa_overrides(f);
  if (vars.empty()) return out.pass("", k_override + std::string(" is not set"));
  bool any_amd = false;
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::amd) continue;
    any_amd = true;
    auto o = override_for(f, gpu, out);
    if (!o) continue;
    const auto& [name, value, wanted, real] = *o;
    std::string real_name = gfx_name(ctx.kb, real), wanted_name = gfx_name(ctx.kb, wanted);
    std::string real_family = gfx_family(ctx.kb, real), wanted_family = gfx_family(ctx.kb, wanted);
    std::vector<std::string> evidence = o->evidence(gpu);
    // Families come from the knowledge table (Knowledge::isa_family also places targets it lacks when their
    // neighbours agree). Where it cannot place one, a different major still means another family; the same
    // major (GFX10 holds both RDNA1 and RDNA2) does not tell.
    bool known = ctx.kb.isa_family(real).has_value() && ctx.kb.isa_family(wanted).has_value();
    bool same_major = real / 10000 == wanted / 10000;
    if (wanted == real || (known && real_family == wanted_family)) {
      out.pass(gpu.subject(),
               name + "=" + value + " makes ROCm load " + wanted_name + " code on this " + real_name +
                   " GPU, of the same family (" + real_family + ")",
               evidence);
      continue;
    }
    if (!known && same_major) {
      out.add(Status::warn, gpu.subject(),
              name + "=" + value + " makes ROCm load " + wanted_name + " code on GPU " +
                  std::to_string(gpu.index) + " (" + gpu.display_name() + "), which is " + real_name +
                  "; gpudoctor's knowledge tables cannot place both targets, so whether they share an ISA "
                  "family is not known. Unset it unless you know the GPU needs it.",
              evidence, {"env-unset-hsa-override"});
      continue;
    }
    out.add(Status::error, gpu.subject(),
            name + "=" + value + " makes ROCm load " + wanted_name + " code, but GPU " +
                std::to_string(gpu.index) + " (" + gpu.display_name() + ") is " + real_name +
                ", of another ISA "
                "family (" +
                wanted_family + " vs " + real_family +
                "): expect GPU faults, hangs or wrong results. "
                "Unset it.",
            evidence, {"env-unset-hsa-override"});
  }
  if (!any_amd) out.skip("", "no AMD GPU for the override to apply to");
}

} // namespace gpudoctor::checks
