// torch.missing, torch.cpu-build, torch.vendor-mismatch: one result per python3 gpudoctor found.
#include "checks/common.hpp"
#include "checks/registry.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string build_name(const TorchBuild& t) {
  if (t.hip) return fmt::format("ROCm (HIP {})", *t.hip);
  if (t.cuda) return fmt::format("CUDA {}", *t.cuda);
  return "CPU-only";
}

std::string torch_evidence(const TorchBuild& t) {
  return fmt::format("{}: __version__ {}, cuda {}, hip {}", t.source, t.version, t.cuda.value_or("None"),
                     t.hip.value_or("None"));
}

} // namespace

void torch_missing(const CheckContext& ctx, Results& out) {
  const auto& envs = ctx.facts.python.envs;
  if (envs.empty()) return out.skip("", "no python3 found");
  for (const auto& env : envs) {
    if (!env.error.empty()) {
      out.skip(python_subject(env),
               fmt::format("could not ask this python3 for its sys.path: {}", env.error));
      continue;
    }
    std::string py = env.version ? fmt::format("Python {}", *env.version) : "python3";
    if (env.torch) {
      out.pass(python_subject(env),
               fmt::format("{} imports PyTorch {} ({})", py, env.torch->version, build_name(*env.torch)),
               {torch_evidence(*env.torch)});
      continue;
    }
    // Another interpreter without PyTorch beside the python3 in use that has it is the usual setup (a venv
    // over the system's python3), not news.
    const PythonEnv& in_use = envs.front();
    if (&env != &in_use && in_use.torch && in_use.error.empty()) {
      out.pass(python_subject(env),
               fmt::format("{} has no PyTorch; the python3 in use ({}) has it", py, in_use.executable));
      continue;
    }
    out.add(Status::info, python_subject(env), fmt::format("{} has no PyTorch on its sys.path.", py),
            {fmt::format("cmd {}: no torch/version.py in any of its {} sys.path entries", env.command_key,
                         env.sys_path.size())});
  }
}

void torch_cpu_build(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t usable = usable_gpus(f, Vendor::nvidia) + usable_gpus(f, Vendor::amd);
  bool any = false;
  for (const auto& env : f.python.envs) {
    if (!env.torch) continue;
    any = true;
    const TorchBuild& t = *env.torch;
    if (!t.cpu_only()) {
      out.pass(python_subject(env), fmt::format("PyTorch {} is a {} build", t.version, build_name(t)),
               {torch_evidence(t)});
    } else if (usable == 0) {
      out.pass(python_subject(env),
               fmt::format("PyTorch {} is CPU-only, and there is no usable GPU here", t.version),
               {torch_evidence(t)});
    } else {
      bool nvidia = usable_gpus(f, Vendor::nvidia) > 0;
      out.add(
          Status::error, python_subject(env),
          fmt::format("PyTorch {} is a CPU-only build, but this machine has a usable {} GPU: "
                      "torch.cuda.is_available() will be False. Reinstall PyTorch from the {} wheel index.",
                      t.version, nvidia ? "NVIDIA" : "AMD", nvidia ? "CUDA" : "ROCm"),
          {torch_evidence(t)});
    }
  }
  if (!any) out.skip("", "no PyTorch found");
}

void torch_vendor_mismatch(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  bool any = false;
  for (const auto& env : f.python.envs) {
    if (!env.torch || env.torch->cpu_only()) continue;
    any = true;
    const TorchBuild& t = *env.torch;
    bool cuda_build = t.cuda.has_value() && !t.hip;
    bool wrong = (cuda_build && amd > 0 && nvidia == 0) || (!cuda_build && nvidia > 0 && amd == 0);
    if (!wrong) {
      std::string why =
          nvidia + amd == 0 ? ": there is no GPU here to use it with" : " matches the GPUs here";
      out.pass(python_subject(env), fmt::format("PyTorch {} ({}){}", t.version, build_name(t), why),
               {torch_evidence(t)});
      continue;
    }
    out.add(Status::error, python_subject(env),
            fmt::format("PyTorch {} is a {} build but this machine has only {} GPUs: it will not see them. "
                        "Reinstall PyTorch from the {} wheel index.",
                        t.version, build_name(t), cuda_build ? "AMD" : "NVIDIA",
                        cuda_build ? "ROCm" : "CUDA"),
            {torch_evidence(t)});
  }
  if (!any) out.skip("", "no GPU build of PyTorch found");
}

} // namespace gpudoctor::checks
