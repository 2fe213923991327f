#include "app/version_help.hpp"

#include "facts/facts.hpp"
#include "fix/choose.hpp"
#include "knowledge/knowledge.hpp"
#include "knowledge/stacks.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor {

VersionHelp version_help() {
  VersionHelp h{
      "NVIDIA driver branch to install instead of the chosen one (the first production or long-term "
      "support branch that runs the chosen CUDA)",
      "CUDA release to install instead of the chosen one (the newest CUDA of PyTorch's wheels that "
      "builds for the GPU)",
      "ROCm release to install instead of the chosen one (the newest recommended release that "
      "supports the GPU and the OS)"};
  auto stacks = load_stacks();
  auto kb = load_knowledge();
  if (!stacks || !kb) return h;
  std::vector<std::string> recommended;
  for (const auto& r : stacks->cuda_installs)
    if (r.recommended) recommended.push_back(r.cuda);
  std::sort(recommended.begin(), recommended.end(),
            [](const auto& a, const auto& b) { return text::compare_versions(a, b) > 0; });
  if (auto c = fix::choose_nvidia(Facts{}, *kb, *stacks, {})) {
    h.driver = fmt::format("NVIDIA driver branch to install instead of the chosen one ({} for CUDA {}: the "
                           "first production or long-term support branch that runs it)",
                           c->branch, c->cuda);
    std::string older =
        recommended.size() > 1
            ? fmt::format(
                  ", {} for GPUs it does not build for",
                  text::join(std::vector<std::string>(recommended.begin() + 1, recommended.end()), " or "))
            : "";
    h.cuda =
        fmt::format("CUDA release to install instead of the chosen one ({}{}: the newest CUDA of PyTorch's "
                    "wheels that builds for the GPU)",
                    c->cuda, older);
  }
  auto rocm = std::find_if(stacks->rocm_installs.begin(), stacks->rocm_installs.end(),
                           [](const RocmInstallRow& r) { return r.recommended; });
  if (rocm != stacks->rocm_installs.end())
    h.rocm =
        fmt::format("ROCm release to install instead of the chosen one ({}, or the newest before it that "
                    "supports the GPU and the OS)",
                    rocm->rocm);
  return h;
}

} // namespace gpudoctor
