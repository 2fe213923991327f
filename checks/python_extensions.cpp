// python.extension-mismatch: a compiled extension beside PyTorch built for the other vendor, another CUDA or
// ROCm major, or another PyTorch release than the one installed. Judged from what its files say it was built
// for (CompiledExtension::built_for) and METADATA's Requires-Dist on torch.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string public_version(const std::string& v) {
  return v.substr(0, v.find('+'));
}

std::string subject_of(const PythonEnv& env, const std::string& dist) {
  return fmt::format("{} (python3 {}: {})", dist, env.role, env.executable);
}

// What the environment is for: its PyTorch build, else the GPUs when they are of one vendor.
struct Target {
  Vendor vendor = Vendor::other;
  std::optional<int> cuda_major, rocm_major;
  std::string why;
};

Target target_of(const Facts& f, const PythonEnv& env) {
  Target t;
  if (env.torch && env.torch->cuda) {
    t.vendor = Vendor::nvidia;
    t.cuda_major = text::to_int(text::version_prefix(*env.torch->cuda, 1)).transform([](long long v) {
      return static_cast<int>(v);
    });
    t.why = fmt::format("PyTorch {} (CUDA {})", env.torch->version, *env.torch->cuda);
  } else if (env.torch && env.torch->hip) {
    t.vendor = Vendor::amd;
    t.rocm_major = text::to_int(text::version_prefix(*env.torch->hip, 1)).transform([](long long v) {
      return static_cast<int>(v);
    });
    t.why = fmt::format("PyTorch {} (ROCm, HIP {})", env.torch->version, *env.torch->hip);
  } else if (f.count(Vendor::nvidia) > 0 && f.count(Vendor::amd) == 0) {
    t.vendor = Vendor::nvidia, t.why = "this machine has only NVIDIA GPUs";
  } else if (f.count(Vendor::amd) > 0 && f.count(Vendor::nvidia) == 0) {
    t.vendor = Vendor::amd, t.why = "this machine has only AMD GPUs";
  }
  return t;
}

std::vector<std::string> problems_of(const Knowledge& kb, const PythonEnv& env, const CompiledExtension& x,
                                     const ExtensionBuild& b, const Target& t) {
  std::vector<std::string> out;
  const TorchExtensionRow* row = kb.torch_extension(x.dist);
  std::string note = row && !row->note.empty() ? fmt::format(" ({})", row->note) : "";
  if (t.vendor == Vendor::amd && b.cuda && !b.rocm)
    out.push_back(fmt::format("it is built for NVIDIA (CUDA{}) while {}{}",
                              b.cuda_major ? fmt::format(" {}", *b.cuda_major) : "", t.why, note));
  else if (t.vendor == Vendor::nvidia && b.rocm && !b.cuda)
    out.push_back(fmt::format("it is built for AMD (ROCm) while {}", t.why));
  if (t.vendor == Vendor::nvidia && b.cuda && t.cuda_major && b.cuda_major && *t.cuda_major != *b.cuda_major)
    out.push_back(
        fmt::format("it is built for CUDA {} while {}: the CUDA {} runtime it needs is not the one PyTorch "
                    "loads",
                    *b.cuda_major, t.why, *b.cuda_major));
  if (t.vendor == Vendor::amd && b.rocm && t.rocm_major && b.rocm_major && *t.rocm_major != *b.rocm_major)
    out.push_back(fmt::format("it is built for ROCm {} while {}", *b.rocm_major, t.why));
  if (env.torch && !b.torch_release.empty() && b.torch_release != text::version_prefix(env.torch->version, 2))
    out.push_back(fmt::format("it is built against PyTorch {} while {} is installed: its C++ symbols do not "
                              "match (\"undefined symbol\" on import)",
                              b.torch_release, env.torch->version));
  if (env.torch)
    for (const auto& spec : x.requires_torch)
      if (text::starts_with(spec, "==") &&
          public_version(spec.substr(2)) != public_version(env.torch->version))
        out.push_back(
            fmt::format("its METADATA requires torch{} while {} is installed", spec, env.torch->version));
  return out;
}

// torch pins the triton it was built with (pytorch-triton-rocm for ROCm builds): another one breaks
// torch.compile.
void judge_triton(const PythonEnv& env, Results& out, bool& any) {
  for (const auto& [name, spec] : env.torch_requires) {
    if ((name != "triton" && name != "pytorch-triton-rocm") || !text::starts_with(spec, "==")) continue;
    for (const auto& d : env.distributions) {
      if (d.name != name) continue;
      any = true;
      std::string want = public_version(spec.substr(2));
      std::vector<std::string> evidence = {fmt::format("torch METADATA: Requires-Dist {}{}", name, spec),
                                           fmt::format("{}: {} {}", d.folder, d.name, d.version)};
      if (public_version(d.version) == want)
        out.pass(subject_of(env, name),
                 fmt::format("{} {} is the one PyTorch {} pins", name, d.version, env.torch->version),
                 evidence);
      else
        out.add(
            Status::error, subject_of(env, name),
            fmt::format("{} {} is installed but PyTorch {} was built with {} {}: torch.compile and Triton "
                        "kernels fail. Reinstall torch (which brings its {}) or pin {}=={}.",
                        name, d.version, env.torch->version, name, want, name, name, want),
            evidence);
    }
  }
}

} // namespace

void python_extension_mismatch(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& env : f.python.envs) {
    if (env.torch) judge_triton(env, out, any);
    Target t = target_of(f, env);
    for (const auto& x : env.extensions) {
      any = true;
      const ExtensionBuild& b = x.built_for;
      std::string subject = subject_of(env, x.dist);
      if (t.vendor == Vendor::other) {
        out.skip(subject, "neither a PyTorch build nor the GPUs say which vendor this environment is for");
        continue;
      }
      auto problems = problems_of(ctx.kb, env, x, b, t);
      std::vector<std::string> evidence = b.evidence;
      if (env.torch)
        evidence.push_back(fmt::format("{}: __version__ {}", env.torch->source, env.torch->version));
      if (problems.empty()) {
        std::string seen = b.cuda || b.rocm ? fmt::format(" (built for {}{})", b.cuda ? "CUDA" : "ROCm",
                                                          b.cuda && b.rocm ? " and ROCm" : "")
                                            : " (its files name no GPU runtime)";
        out.pass(subject, fmt::format("{} {} fits {}{}", x.dist, x.version, t.why, seen), evidence);
        continue;
      }
      out.add(Status::error, subject,
              fmt::format("{} {} cannot work here: {}. Reinstall it for this PyTorch (a wheel built for its "
                          "vendor, CUDA/ROCm major and release), or build it from source against it.",
                          x.dist, x.version, text::join(problems, "; ")),
              evidence);
    }
  }
  if (!any) out.skip("", "no compiled extension beside PyTorch found");
}

} // namespace gpudoctor::checks
