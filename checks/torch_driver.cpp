// torch.cuda-too-new: the CUDA a PyTorch build carries against the loaded NVIDIA driver.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

void torch_cuda_too_new(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto driver = nvidia_driver_version(f);
  bool any = false;
  for (const auto& env : f.python.envs) {
    if (!env.torch || !env.torch->cuda || env.torch->hip) continue;
    any = true;
    const TorchBuild& t = *env.torch;
    std::string subject = python_subject(env);
    if (!driver) {
      out.skip(subject, "no NVIDIA driver loaded");
      continue;
    }
    std::vector<std::string> evidence = {
        fmt::format("{}: __version__ {}, cuda {}", t.source, t.version, *t.cuda),
        fmt::format("{}: driver {}", driver->source, **driver)};
    auto runs = ctx.kb.driver_runs_cuda(**driver, *t.cuda);
    if (!runs) {
      out.skip(subject, fmt::format("CUDA {} is not in the knowledge tables", *t.cuda));
      continue;
    }
    if (*runs) {
      out.pass(subject, fmt::format("driver {} runs PyTorch {} (CUDA {})", **driver, t.version, *t.cuda),
               evidence);
      continue;
    }
    auto row = ctx.kb.min_driver_for_cuda(*t.cuda);
    auto major = text::to_int(text::version_prefix(*t.cuda, 1));
    auto family = major ? ctx.kb.cuda_family(static_cast<int>(*major)) : std::nullopt;
    if (row)
      evidence.push_back(
          fmt::format("knowledge cuda.yaml: CUDA {} >= {} ({})", row->cuda, row->min_driver, row->source));
    if (family)
      evidence.push_back(
          fmt::format("knowledge cuda.yaml: CUDA {}.x (minor-version compatibility) >= {} ({})",
                      family->major, family->min_driver, family->source));
    std::string need = family ? family->min_driver : row ? row->min_driver : std::string("a newer one");
    bool soft = row && row->uncertain && !(family && !family->uncertain);
    out.add(
        soft ? Status::warn : Status::error, subject,
        fmt::format("PyTorch {} was built with CUDA {}, which needs NVIDIA driver {} or newer; the loaded "
                    "driver is {}, so torch.cuda.is_available() is False (\"The NVIDIA driver on your system "
                    "is too old\"). Install the PyTorch build for an older CUDA, or upgrade the driver.",
                    t.version, *t.cuda, need, **driver),
        evidence);
  }
  if (!any) out.skip("", "no CUDA build of PyTorch found");
}

} // namespace gpudoctor::checks
