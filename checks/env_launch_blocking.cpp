// env.launch-blocking: a debugging variable that serialises every kernel launch, left set.
#include "checks/common.hpp"
#include "checks/registry.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

void env_launch_blocking(const CheckContext& ctx, Results& out) {
  bool any = false;
  for (const char* name : {"CUDA_LAUNCH_BLOCKING", "HIP_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL"}) {
    auto it = ctx.facts.env.all.find(name);
    if (it == ctx.facts.env.all.end() || it->second.empty() || it->second == "0") continue;
    any = true;
    out.add(Status::warn, name,
            fmt::format("{}={} makes every kernel launch wait for the GPU: training runs several times "
                        "slower. Unset it unless you are debugging.",
                        name, it->second),
            {env_evidence(name, it->second)});
  }
  if (!any) out.pass("", "no launch-serialising variable is set");
}

} // namespace gpudoctor::checks
