// python.foreign-wheels: packages built for the other GPU vendor in a python environment.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool has_dist(const PythonEnv& env, const std::string& name) {
  return std::any_of(env.distributions.begin(), env.distributions.end(),
                     [&](const PythonDist& d) { return d.name == name; });
}

// "-cu12" at the end of a name, "+cu121" / "+cu12torch2.3" in a version.
bool cuda_tag(const std::string& s, std::size_t at) {
  return at + 2 < s.size() && s.compare(at, 2, "cu") == 0 &&
         std::isdigit(static_cast<unsigned char>(s[at + 2]));
}

// Whose GPUs a distribution is built for, from its name and its version's local label.
Vendor built_for(const PythonDist& d) {
  const std::string& n = d.name;
  std::string local =
      d.version.find('+') == std::string::npos ? "" : text::lower(d.version.substr(d.version.find('+') + 1));
  if (n == "pytorch-triton-rocm" || text::contains(n, "rocm") || text::starts_with(local, "rocm"))
    return Vendor::amd;
  auto dash = n.rfind('-');
  bool cu_suffix = dash != std::string::npos && cuda_tag(n, dash + 1);
  if ((text::starts_with(n, "nvidia-") && cu_suffix) || text::starts_with(n, "cupy-cuda") ||
      (text::starts_with(n, "jax-cuda") && (text::ends_with(n, "-plugin") || text::ends_with(n, "-pjrt"))) ||
      cuda_tag(local, 0))
    return Vendor::nvidia;
  return Vendor::other;
}

std::string vendor_word(Vendor v) {
  return v == Vendor::nvidia ? "NVIDIA (CUDA)" : "AMD (ROCm)";
}

} // namespace

void python_foreign_wheels(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  bool any = false;
  for (const auto& env : f.python.envs) {
    if (env.distributions.empty()) continue;
    any = true;
    std::string subject = python_subject(env);
    // What this environment is for: the GPUs here when they are of one vendor, else its PyTorch build.
    Vendor mine = Vendor::other;
    std::string why;
    if (nvidia > 0 && amd == 0) {
      mine = Vendor::nvidia;
      why = "this machine has only NVIDIA GPUs";
    } else if (amd > 0 && nvidia == 0) {
      mine = Vendor::amd;
      why = "this machine has only AMD GPUs";
    } else if (env.torch && env.torch->hip) {
      mine = Vendor::amd;
      why = fmt::format("its PyTorch {} is a ROCm build", env.torch->version);
    } else if (env.torch && env.torch->cuda) {
      mine = Vendor::nvidia;
      why = fmt::format("its PyTorch {} is a CUDA build", env.torch->version);
    }
    if (mine == Vendor::other) {
      out.skip(subject, "neither the GPUs nor a PyTorch build say which vendor this environment is for");
      continue;
    }
    Vendor other = mine == Vendor::nvidia ? Vendor::amd : Vendor::nvidia;
    std::vector<const PythonDist*> foreign;
    for (const auto& d : env.distributions)
      if (built_for(d) == other) foreign.push_back(&d);
    // PyPI's triton is NVIDIA's build; next to pytorch-triton-rocm both provide the `triton` module.
    bool triton_clash = mine == Vendor::amd && has_dist(env, "pytorch-triton-rocm");
    if (triton_clash)
      for (const auto& d : env.distributions)
        if (d.name == "triton") foreign.push_back(&d);
    if (foreign.empty()) {
      out.pass(subject,
               fmt::format("{} packages, none built for the other vendor", env.distributions.size()));
      continue;
    }
    std::vector<std::string> names, evidence;
    for (const auto* d : foreign) {
      names.push_back(fmt::format("{} {}", d->name, d->version));
      if (evidence.size() < 12) evidence.push_back(fmt::format("{}: {} {}", d->folder, d->name, d->version));
    }
    if (foreign.size() > 12) evidence.push_back(fmt::format("... and {} more", foreign.size() - 12));
    if (env.torch)
      evidence.push_back(fmt::format("{}: __version__ {}", env.torch->source, env.torch->version));
    std::string shown =
        names.size() <= 6
            ? text::join(names, ", ")
            : fmt::format("{} and {} more",
                          text::join(std::vector<std::string>(names.begin(), names.begin() + 6), ", "),
                          names.size() - 6);
    std::string msg = fmt::format("{} package{} built for {} GPUs although {}: {}.", foreign.size(),
                                  foreign.size() == 1 ? " is" : "s are", vendor_word(other), why, shown);
    if (triton_clash &&
        std::any_of(foreign.begin(), foreign.end(), [](const PythonDist* d) { return d->name == "triton"; }))
      msg +=
          " triton and pytorch-triton-rocm both install the `triton` module, and whichever wins breaks the "
          "other's torch.compile.";
    msg += " They are leftovers of an install for the other vendor: they take gigabytes and can shadow the "
           "right "
           "libraries. Remove them with pip uninstall.";
    out.add(Status::warn, subject, msg, evidence);
    std::vector<std::string> dists;
    for (const auto* d : foreign)
      dists.push_back(d->name);
    if (auto words = pip_uninstall(env, dists); !words.empty()) out.act(Action::command({words}));
  }
  if (!any) out.skip("", "no site-packages folder listed");
}

} // namespace gpudoctor::checks
