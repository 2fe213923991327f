// env.hsa-override-invalid, env.hsa-override-mismatch
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

void env_hsa_override_invalid(const CheckContext& ctx, Results& out) {
  const auto& vars = ctx.facts.env.hsa_overrides;
  if (vars.empty()) return out.pass("", "HSA_OVERRIDE_GFX_VERSION is not set");
  // Without an AMD GPU nothing reads it now: a leftover worth removing, not a broken stack.
  bool amd = ctx.facts.count(Vendor::amd) > 0;
  for (const auto& [name, value, gfx_target_version] : vars) {
    if (gfx_target_version) {
      out.pass(name, fmt::format("{}={} is well formed", name, value),
               {env_evidence(ctx.facts, name, value)});
      continue;
    }
    out.add(
        amd ? Status::error : Status::warn, name,
        fmt::format("{0}=\"{1}\" is not three decimal numbers major.minor.stepping (like 10.3.0 or 11.0.0): "
                    "ROCm refuses to start (\"HSA_OVERRIDE_GFX_VERSION {1} is invalid\"){2}. Unset it, or "
                    "write it as major.minor.stepping.{3}",
                    name, value, amd ? "" : " if it ever runs here", where_set(ctx.facts, name)),
        {env_evidence(ctx.facts, name, value)});
  }
}

void env_hsa_override_mismatch(const CheckContext& ctx, Results& out) {
  for_each_override(ctx.facts, out, [&](const Gpu& gpu, const GpuOverride& o) {
    const auto& [name, value, wanted, real] = o;
    std::string real_name = gfx_name(ctx.kb, real), wanted_name = gfx_name(ctx.kb, wanted);
    std::string real_family = gfx_family(ctx.kb, real), wanted_family = gfx_family(ctx.kb, wanted);
    std::vector<std::string> evidence = o.evidence(ctx.facts, gpu);
    // Families come from the knowledge table (Knowledge::isa_family also places targets it lacks when their
    // neighbours agree). Where it cannot place one, a different major still means another family; the same
    // major (GFX10 holds both RDNA1 and RDNA2) does not tell.
    bool known = ctx.kb.isa_family(real).has_value() && ctx.kb.isa_family(wanted).has_value();
    bool same_major = real / 10000 == wanted / 10000;
    if (wanted == real || (known && real_family == wanted_family))
      return out.pass(gpu.subject(),
                      fmt::format("{}={} makes ROCm load {} code on this {} GPU, of the same family ({})",
                                  name, value, wanted_name, real_name, real_family),
                      evidence);
    if (!known && same_major)
      return out.add(
          Status::warn, gpu.subject(),
          fmt::format("{}={} makes ROCm load {} code on GPU {} ({}), which is {}; gpudoctor's knowledge "
                      "tables cannot place both targets, so whether they share an ISA family is not "
                      "known. Unset it unless you know the GPU needs it.{}",
                      name, value, wanted_name, gpu.index, gpu.display_name(), real_name,
                      where_set(ctx.facts, name)),
          evidence);
    out.add(
        Status::error, gpu.subject(),
        fmt::format("{}={} makes ROCm load {} code, but GPU {} ({}) is {}, of another ISA family ({} vs {}): "
                    "expect GPU faults, hangs or wrong results. Unset it.{}",
                    name, value, wanted_name, gpu.index, gpu.display_name(), real_name, wanted_family,
                    real_family, where_set(ctx.facts, name)),
        evidence);
  });
}

} // namespace gpudoctor::checks
