// python.extension-mismatch: a compiled extension beside PyTorch built for the other vendor, another CUDA or
// ROCm major, or another PyTorch release than the one installed. Judged from what the files say: the
// version's local label (+cu123torch2.4, +rocm6.1), the names of its shared libraries
// (libbitsandbytes_cuda121.so), their DT_NEEDED (libcudart.so.12, libamdhip64.so.6, libc10_cuda.so) and
// METADATA's Requires-Dist on torch.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "parse/parsers_layer.hpp"
#include "util/text.hpp"

#include <cctype>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

struct BuiltFor {
  bool cuda = false, rocm = false;
  std::optional<int> cuda_major, rocm_major;
  std::string torch_release; // "2.4", from a label
  std::vector<std::string> evidence;
};

std::string leading_digits(const std::string& s, std::size_t at) {
  std::string d;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])))
    d += s[at++];
  return d;
}

// "121" (libbitsandbytes_cuda121.so) -> 12, as in a cu121 label.
std::optional<int> cuda_major_of(const std::string& digits) {
  return parse::version_label(fmt::format("+cu{}", digits)).and_then([](const parse::VersionLabel& l) {
    return l.cuda_major;
  });
}

// "libcudart.so.12" -> 12, "libamdhip64.so.6" -> 6: the first number after ".so.".
std::optional<int> so_major(const std::string& name) {
  auto at = name.find(".so.");
  if (at == std::string::npos) return std::nullopt;
  auto d = leading_digits(name, at + 4);
  if (d.empty() || d.size() > 3) return std::nullopt;
  return static_cast<int>(*text::to_int(d));
}

void from_label(const CompiledExtension& x, BuiltFor& b) {
  auto label = parse::version_label(x.version);
  if (!label) return;
  if (label->cuda || label->rocm)
    b.evidence.push_back(fmt::format("{} {}: version label +{}", x.dist, x.version, label->label));
  b.cuda = label->cuda, b.cuda_major = label->cuda_major;
  b.rocm = label->rocm, b.rocm_major = label->rocm_major;
  b.torch_release = label->torch_release;
}

void from_library(const CompiledExtension::Library& lib, BuiltFor& b) {
  std::string name = lib.path.substr(lib.path.rfind('/') + 1);
  std::string lower = text::lower(name);
  // bitsandbytes names its libraries by backend and version: libbitsandbytes_cuda121.so, _rocm63, _hip.
  if (auto at = lower.find("_cuda"); at != std::string::npos && !leading_digits(lower, at + 5).empty()) {
    b.cuda = true;
    if (!b.cuda_major) b.cuda_major = cuda_major_of(leading_digits(lower, at + 5));
    b.evidence.push_back(fmt::format("library {}", lib.path));
  }
  if (text::contains(lower, "_rocm") || text::contains(lower, "_hip")) {
    b.rocm = true;
    b.evidence.push_back(fmt::format("library {}", lib.path));
  }
  if (!lib.needed) return;
  for (const auto& n : *lib.needed) {
    bool cuda = text::starts_with(n, "libcudart.so") || text::starts_with(n, "libcublas") ||
                text::starts_with(n, "libnvrtc.so") || n == "libc10_cuda.so" || n == "libtorch_cuda.so";
    bool rocm = text::starts_with(n, "libamdhip64.so") || text::starts_with(n, "libhipblas") ||
                n == "libc10_hip.so" || n == "libtorch_hip.so";
    if (!cuda && !rocm) continue;
    b.evidence.push_back(fmt::format("elf-needed@{}: {}", lib.path, n));
    if (cuda) {
      b.cuda = true;
      if (text::starts_with(n, "libcudart.so") && so_major(n)) b.cuda_major = so_major(n);
    } else {
      b.rocm = true;
      if (text::starts_with(n, "libamdhip64.so") && so_major(n)) b.rocm_major = so_major(n);
    }
  }
}

BuiltFor built_for(const CompiledExtension& x) {
  BuiltFor b;
  from_label(x, b);
  for (const auto& lib : x.libraries)
    from_library(lib, b);
  return b;
}

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
                                     const BuiltFor& b, const Target& t) {
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
      BuiltFor b = built_for(x);
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
