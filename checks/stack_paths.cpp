// cuda.path-mismatch, rocm.multiple, stack.leftover-paths: what the machine's settings point at.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string pointer_evidence(const StackPointer& p, const char* stack) {
  std::string s = fmt::format("{}: {}", p.what, p.path);
  if (!p.resolved.empty() && p.resolved != p.path) s += fmt::format(" -> {}", p.resolved);
  if (!p.exists) return fmt::format("{} (missing)", s);
  if (p.version) return fmt::format("{} ({} {}, {})", s, stack, *p.version, p.version.source);
  return fmt::format("{} (version unknown)", s);
}

std::string stack_name(Vendor v) {
  return v == Vendor::nvidia ? "NVIDIA (CUDA)" : "AMD (ROCm)";
}

// "environment" for the process's own variables; the file for a profile or ld.so.conf line.
std::string origin_subject(const std::string& origin) {
  if (text::starts_with(origin, "env ")) return "environment";
  auto colon = origin.rfind(':');
  return colon == std::string::npos ? origin : origin.substr(0, colon);
}

// The first of `order` among the pointers: the toolkit PyTorch's cpp_extension compiles extensions with. CUDA
// (_find_cuda_home): CUDA_HOME, CUDA_PATH, the folder above the first nvcc on PATH, /usr/local/cuda; ROCm
// (_find_rocm_home): ROCM_HOME, ROCM_PATH, the ROCm of the hipcc on PATH, /opt/rocm. A variable naming a
// missing folder still wins: the build then fails. Null when none is.
const StackPointer* extension_toolkit(const std::vector<StackPointer>& ptrs,
                                      std::initializer_list<const char*> order) {
  for (const char* what : order)
    for (const auto& p : ptrs)
      if (p.what == what) return &p;
  return nullptr;
}

// The interpreter in use's PyTorch, when it is a build for `vendor`'s stack.
const PythonEnv* torch_env(const Facts& f, Vendor vendor) {
  if (f.python.envs.empty()) return nullptr;
  const PythonEnv& env = f.python.envs.front();
  if (!env.torch) return nullptr;
  return (vendor == Vendor::nvidia ? env.torch->cuda : env.torch->hip) ? &env : nullptr;
}

// The environment builds extensions, or brings its own toolkit: compiled extensions beside PyTorch, the CUDA
// wheels (nvidia-cuda-runtime-cu12, nvidia-cuda-nvcc-cu12) or a conda environment (cudatoolkit,
// pytorch-cuda).
bool builds_extensions(const PythonEnv& env) {
  return !env.extensions.empty() || env.role == "CONDA_PREFIX" ||
         std::ranges::any_of(env.distributions,
                             [](const PythonDist& d) { return text::starts_with(d.name, "nvidia-cuda-"); });
}

// One cause, one finding: the paths' problem and PyTorch's own CUDA or ROCm against the toolkit its extension
// builds take join in one result. PyTorch's alone warns where extensions are built or the environment brings
// its own toolkit; elsewhere (a wheel beside a system toolkit, nothing compiled) it is information: running
// PyTorch does not need the toolkit. False when there is nothing to say.
bool add_joined(Results& out, const std::string& paths_problem, const std::string& torch_problem,
                const PythonEnv* env, const std::vector<std::string>& evidence) {
  if (paths_problem.empty() && torch_problem.empty()) return false;
  if (paths_problem.empty())
    out.add(env && builds_extensions(*env) ? Status::warn : Status::info, "", torch_problem, evidence);
  else
    out.add(Status::warn, "", torch_problem.empty() ? paths_problem : paths_problem + " " + torch_problem,
            evidence);
  return true;
}

// PyTorch's CUDA against the toolkit its extension builds take: cpp_extension refuses another major release
// ("The detected CUDA version (X) mismatches the version that was used to compile PyTorch (Y)") and only
// warns for another minor one (_check_cuda_version). Empty when they agree or either is unknown.
std::string torch_toolkit_problem(const Facts& f, std::vector<std::string>& evidence) {
  const PythonEnv* env = torch_env(f, Vendor::nvidia);
  const StackPointer* tk =
      extension_toolkit(f.stack_paths.cuda, {"CUDA_HOME", "CUDA_PATH", "nvcc on PATH", "/usr/local/cuda"});
  if (!env || !tk || !tk->exists || !tk->version) return {};
  const TorchBuild& torch = *env->torch;
  evidence.push_back(fmt::format("{}: torch {} (CUDA {})", torch.source, torch.version, *torch.cuda));
  std::string built = text::version_prefix(*torch.cuda, 1), have = text::version_prefix(*tk->version, 1);
  if (built == have) return {};
  return fmt::format(
      "PyTorch {} ({}) was built with CUDA {}, but extension builds (pip install of "
      "flash-attn, apex, a setup.py with CUDAExtension) compile with the CUDA {} toolkit of {}, "
      "and PyTorch refuses another major release: \"The detected CUDA version ({}) mismatches the "
      "version that was used to compile PyTorch ({})\". Install a CUDA {} toolkit (in a conda "
      "environment: conda install cuda-nvcc={}) and point CUDA_HOME at it, or install the "
      "PyTorch build for CUDA {}.",
      torch.version, env->executable, *torch.cuda, text::version_prefix(*tk->version, 2), tk->what,
      text::version_prefix(*tk->version, 2), *torch.cuda, built, *torch.cuda, have);
}

// PyTorch's ROCm (torch.version.hip: "6.2.41133-dd7f95766") against the ROCm its extension builds take, by
// release (major.minor): an extension built against another release loads that release's libraries beside
// the ones the wheel bundles, and builds that name their library by release look for the wheel's
// (bitsandbytes-foundation/bitsandbytes#1878: "torch+rocm7.0 on ROCm 7.2 ... fails to find the native
// library"). Empty when they agree or either is unknown.
std::string torch_rocm_problem(const Facts& f, std::vector<std::string>& evidence) {
  const PythonEnv* env = torch_env(f, Vendor::amd);
  const StackPointer* rocm =
      extension_toolkit(f.stack_paths.rocm, {"ROCM_HOME", "ROCM_PATH", "hipcc on PATH", "/opt/rocm"});
  if (!env || !rocm || !rocm->exists || !rocm->version) return {};
  const TorchBuild& torch = *env->torch;
  evidence.push_back(fmt::format("{}: torch {} (ROCm {})", torch.source, torch.version, *torch.hip));
  std::string built = text::version_prefix(*torch.hip, 2), have = text::version_prefix(*rocm->version, 2);
  if (built == have) return {};
  return fmt::format(
      "PyTorch {} ({}) was built with ROCm {}, but extension builds (pip install of flash-attn or "
      "bitsandbytes, a setup.py with CUDAExtension through hipify) compile with ROCm {} of {}: the extension "
      "links that release's HIP libraries beside the ones the wheel bundles, and loads wrong or not at all. "
      "Point ROCM_PATH (and ROCM_HOME) at a ROCm {} install, or install the PyTorch build for ROCm {} "
      "(https://download.pytorch.org/whl/rocm{}).",
      torch.version, env->executable, built, have, rocm->what, built, have, have);
}

} // namespace

void cuda_path_mismatch(const CheckContext& ctx, Results& out) {
  const auto& ptrs = ctx.facts.stack_paths.cuda;
  if (ptrs.empty()) return out.skip("", "no nvcc on PATH, CUDA_HOME, CUDA_PATH or /usr/local/cuda");
  std::vector<std::string> evidence;
  std::map<std::string, std::vector<std::string>> by_version; // "12.1" -> {"nvcc on PATH", ...}
  std::vector<std::string> missing;
  for (const auto& p : ptrs) {
    evidence.push_back(pointer_evidence(p, "CUDA"));
    if (!p.exists)
      missing.push_back(fmt::format("{} ({})", p.what, p.resolved.empty() ? p.path : p.resolved));
    else if (p.version)
      by_version[text::version_prefix(*p.version, 2)].push_back(p.what);
  }
  // Two toolkits named, or one named that is not there: the same fix (one set of paths) for both.
  std::string problem;
  if (by_version.size() >= 2) {
    std::vector<std::string> parts;
    for (const auto& [version, whats] : by_version)
      parts.push_back(fmt::format("{} CUDA {}", text::join(whats, " and "), version));
    problem =
        fmt::format("The CUDA paths disagree: {}. Builds (PyTorch extensions, CMake, pip packages compiled "
                    "from source) then mix the compiler of one release with the headers and libraries of "
                    "another. Point them at one toolkit.",
                    text::join(parts, ", "));
  } else if (!missing.empty()) {
    problem =
        fmt::format("A CUDA path names a folder that does not exist: {}. Tools that read it (PyTorch's "
                    "cpp_extension, CMake's FindCUDAToolkit) fail or fall back to another toolkit. Point "
                    "it at an installed toolkit or remove it.",
                    text::join(missing, ", "));
  }
  std::string torch_problem = torch_toolkit_problem(ctx.facts, evidence);
  if (add_joined(out, problem, torch_problem, torch_env(ctx.facts, Vendor::nvidia), evidence)) return;
  if (by_version.empty())
    return out.pass("", "the CUDA paths name no toolkit whose version is known", evidence);
  std::string torch_note;
  if (const PythonEnv* env = torch_env(ctx.facts, Vendor::nvidia))
    if (text::version_prefix(*env->torch->cuda, 2) != by_version.begin()->first)
      torch_note =
          fmt::format(" (PyTorch's CUDA {} differs in the minor release only: its extension builds warn "
                      "and go on)",
                      *env->torch->cuda);
  out.pass("", fmt::format("everything points at CUDA {}{}", by_version.begin()->first, torch_note),
           evidence);
}

void rocm_multiple(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.toolkits.rocm.empty()) return out.skip("", "no ROCm installed");
  std::vector<std::string> installed;
  for (const auto& r : f.toolkits.rocm)
    installed.push_back(fmt::format("ROCm {} in {}", r.version ? *r.version : "(version unknown)", r.path));
  std::vector<std::string> evidence = installed;
  // Where the pointers that exist end up; a missing one is stack.leftover-paths' business.
  std::map<std::string, std::vector<std::string>> targets; // resolved folder -> pointers
  for (const auto& p : f.stack_paths.rocm) {
    evidence.push_back(pointer_evidence(p, "ROCm"));
    if (p.exists) targets[p.resolved].push_back(p.what);
  }
  std::string problem;
  if (f.toolkits.rocm.size() >= 2 && targets.size() >= 2) {
    std::vector<std::string> parts;
    for (const auto& [dir, whats] : targets) {
      std::string version;
      for (const auto& p : f.stack_paths.rocm)
        if (p.resolved == dir && p.version) version = fmt::format(" (ROCm {})", *p.version);
      parts.push_back(fmt::format("{} -> {}{}", text::join(whats, " and "), dir, version));
    }
    problem = fmt::format(
        "{} ROCm versions are installed and the settings point at different ones: {}. Programs then load the "
        "libraries of one release with the runtime or compiler of another (ImportError on libhipblas.so.N, "
        "hipErrorNoBinaryForGpu). Pick one (update-alternatives --config rocm), point ROCM_PATH, PATH and "
        "LD_LIBRARY_PATH at it, or remove the other.",
        installed.size(), text::join(parts, "; "));
  }
  std::string torch_problem = torch_rocm_problem(f, evidence);
  if (add_joined(out, problem, torch_problem, torch_env(f, Vendor::amd), evidence)) return;
  if (f.toolkits.rocm.size() < 2)
    return out.pass("", fmt::format("one ROCm install: {}", installed.front()), evidence);
  std::string where = targets.empty() ? "nothing points at one of them"
                                      : fmt::format("everything points at {}", targets.begin()->first);
  out.pass("", fmt::format("{} ROCm installs; {}", installed.size(), where), evidence);
}

void stack_leftover_paths(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const auto& settings = f.stack_paths.settings;
  if (settings.empty())
    return out.pass("", "no GPU-stack folder in PATH, LD_LIBRARY_PATH, ld.so.conf or the shell profiles");
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  auto foreign = [&](Vendor stack) {
    return nvidia + amd > 0 && (stack == Vendor::nvidia ? nvidia == 0
                                : stack == Vendor::amd  ? amd == 0
                                                        : false);
  };
  // One result per place that names them: the environment, or one file.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> found;
  std::map<std::string, std::set<std::string>> reasons;
  for (const auto& s : settings) {
    bool missing = s.exists && !*s.exists;
    bool other_vendor = foreign(s.stack);
    if (!missing && !other_vendor) continue;
    std::string subject = origin_subject(s.origin);
    if (!found.count(subject)) order.push_back(subject);
    std::string what =
        s.resolved.empty() || s.resolved == s.entry ? s.entry : fmt::format("{} ({})", s.entry, s.resolved);
    std::string why;
    if (missing) why = "does not exist";
    if (other_vendor) {
      why += why.empty() ? "" : ", and ";
      why += fmt::format("belongs to the {} stack, but this machine has only {} GPUs", stack_name(s.stack),
                         nvidia > 0 ? "NVIDIA" : "AMD");
      reasons[subject].insert("absent vendor");
    }
    if (missing) reasons[subject].insert("missing");
    found[subject].push_back(fmt::format("{}: {} {} {}", s.origin, s.variable, what, why));
  }
  if (order.empty()) {
    std::vector<std::string> evidence;
    for (const auto& s : settings)
      evidence.push_back(fmt::format("{}: {} {}", s.origin, s.variable, s.entry));
    bool one = settings.size() == 1;
    std::string whose = nvidia + amd == 0 ? " (no GPU here says whose stack would be stray)"
                        : one             ? " and belongs to the GPUs here"
                                          : " and belong to the GPUs here";
    return out.pass(
        "", fmt::format("{} GPU-stack path entr{}{}", settings.size(), one ? "y exists" : "ies exist", whose),
        evidence);
  }
  for (const auto& subject : order) {
    const auto& lines = found[subject];
    bool absent = reasons[subject].count("absent vendor") > 0;
    std::string where = subject == "environment" ? "The environment" : subject;
    std::string state = !absent                             ? "missing"
                        : reasons[subject].count("missing") ? "missing or of the absent vendor"
                                                            : "of the absent vendor's stack";
    const bool one = lines.size() == 1;
    std::string msg =
        fmt::format("{} names {} GPU-stack folder{} that {} {}: leftovers of an uninstalled or "
                    "replaced stack. They slow every command lookup at best, and load the wrong "
                    "libraries at worst. Remove them{}.",
                    where, lines.size(), one ? "" : "s", one ? "is" : "are", state,
                    subject == "environment" ? " from wherever they are set" : "");
    out.add(Status::warn, subject, msg, lines);
  }
}

} // namespace gpudoctor::checks
