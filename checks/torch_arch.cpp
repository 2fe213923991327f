// torch.arch-missing: whether the installed PyTorch carries code for each GPU. With probes, PyTorch's own
// arch list decides (torch_probe.cpp); without them, the wheel table does (knowledge pytorch_wheels.yaml),
// from the release and index of the installed wheel.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "checks/torch_wheel.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string index_url(const std::string& variant) {
  return fmt::format("https://download.pytorch.org/whl/{}", variant);
}

// Where the code for `arch` is: the first release whose wheels carry it, and the newest.
std::string where_it_is(const Knowledge& kb, const std::string& arch, bool rocm) {
  std::vector<const TorchWheelRow*> rows;
  for (const auto* r : kb.torch_wheels_carrying(arch))
    if (r->is_rocm() == rocm) rows.push_back(r);
  if (rows.empty()) return fmt::format(" No official PyTorch wheel in gpudoctor's table carries {}.", arch);
  const TorchWheelRow* first = rows.front();
  const TorchWheelRow* newest = rows.back();
  std::string out = fmt::format(" The first release whose wheels carry {} is PyTorch {} on {}", arch,
                                first->torch, index_url(first->variant));
  if (newest != first)
    out += fmt::format(" (the newest: {} on {})", newest->torch, index_url(newest->variant));
  out += '.';
  return out;
}

// The python3 in use, or the first environment with a GPU build of PyTorch.
const PythonEnv* judged_env(const Facts& f) {
  for (const auto& env : f.python.envs)
    if (env.torch && !env.torch->cpu_only()) return &env;
  return nullptr;
}

void from_table(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const PythonEnv* env = judged_env(f);
  if (!env) return out.skip("", "no GPU build of PyTorch found");
  const TorchBuild& t = *env->torch;
  WheelIdentity id = identify_wheel(t);
  if (!id.skip.empty()) return out.skip(python_subject(*env), id.skip);
  const TorchWheelRow* row = ctx.kb.torch_wheel(t.version, id.variant);
  if (!row)
    return out.skip(
        python_subject(*env),
        fmt::format("gpudoctor's wheel table has no arch list for PyTorch {} {}", id.release, id.variant));
  const bool rocm = row->is_rocm();
  const Vendor vendor = rocm ? Vendor::amd : Vendor::nvidia;
  std::string list = fmt::format("[{}]", text::join(row->arches, ", "));
  std::string wheel_evidence =
      fmt::format("knowledge torch_wheels {} {}: {} ({})", row->torch, row->variant, list, row->source);
  bool any = false;
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != vendor || gpu.arch().empty()) continue;
    any = true;
    if (integrated_beside_discrete(ctx, gpu)) {
      out.skip(gpu.subject(),
               "the processor's integrated GPU beside a discrete one: rocm.igpu-visible judges it");
      continue;
    }
    std::vector<std::string> evidence = {gpu_evidence(gpu),
                                         fmt::format("{}: __version__ {}", t.source, t.version),
                                         fmt::format("wheel: {}", id.how), wheel_evidence};
    std::string how;
    std::string arch = rocm ? rocm_target(ctx, gpu, how) : gpu.arch();
    if (!how.empty()) evidence.push_back(fmt::format("env {}: ROCm loads {} code on this GPU", how, arch));
    if (arch_rule::list_runs_on(row->arches, arch)) {
      out.pass(gpu.subject(),
               fmt::format("PyTorch {} ({} wheels) carries code for {}{}", t.version, row->variant, arch,
                           how.empty() ? "" : fmt::format(" (through {})", how)),
               evidence);
      continue;
    }
    std::string msg = fmt::format(
        "PyTorch {} ({} wheels of {}, which carry {}) has no code for this GPU's {} ({}): kernels fail with "
        "\"{}\".",
        t.version, row->variant, row->torch, list, arch, gpu.display_name(),
        rocm ? "HIP error: invalid device function"
             : "no kernel image is available for execution on the device");
    msg += where_it_is(ctx.kb, arch, rocm);
    if (row->uncertain) msg += " (The wheel list is not confirmed: gpudoctor warns instead of erring.)";
    msg += " Run with --probes to ask PyTorch itself.";
    out.add(row->uncertain ? Status::warn : Status::error, gpu.subject(), msg, evidence);
  }
  if (!any)
    out.skip(python_subject(*env),
             fmt::format("no {} GPU with a known arch for this build", vendor_name(vendor)));
}

} // namespace

void torch_arch_missing(const CheckContext& ctx, Results& out) {
  // With probes, PyTorch's own answer wins over the table.
  if (ctx.facts.probes.requested && ctx.facts.probes.framework)
    return torch_arch_missing_from_probe(ctx, out);
  from_table(ctx, out);
}

} // namespace gpudoctor::checks
