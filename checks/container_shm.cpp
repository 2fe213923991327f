// container.shm-small: /dev/shm of a container with two or more GPUs under 1 GiB. NCCL's SHM transport and
// PyTorch's DataLoader workers use it; Docker gives 64 MiB unless told --shm-size or --ipc=host (NCCL's
// troubleshooting guide, "Docker": "--shm-size=1g --ulimit memlock=-1").
#include "checks/common.hpp"
#include "checks/nccl_common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

constexpr std::uint64_t k_min_shm = 1ull << 30;

std::string mib(std::uint64_t bytes) {
  return fmt::format("{} MiB", bytes >> 20);
}

} // namespace

void container_shm_small(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t gpus = gpu_count(ctx);
  if (!f.os.in_container) return out.skip("", "not in a container");
  if (gpus < 2)
    return out.skip("", fmt::format("{} GPU{}: no GPU talks to another through /dev/shm here", gpus,
                                    gpus == 1 ? "" : "s"));
  if (!f.host.shm_bytes)
    return out.skip(paths::dev_shm, "the size of /dev/shm could not be read (df -Pk /dev/shm)");
  std::vector<std::string> evidence = {
      f.os.container_evidence, fmt::format("{}: /dev/shm {}", f.host.shm_source, mib(*f.host.shm_bytes))};
  if (*f.host.shm_bytes >= k_min_shm)
    return out.pass(paths::dev_shm,
                    fmt::format("{} has {} for {} GPUs", paths::dev_shm, mib(*f.host.shm_bytes), gpus),
                    evidence);
  out.add(Status::warn, paths::dev_shm,
          fmt::format(
              "{} in this container has {} (Docker's default is 64 MiB) while {} GPUs share it: NCCL "
              "fails with \"unhandled system error\" or \"Bus error\" when its shared-memory segments do not "
              "fit, and DataLoader workers die. Start the container with --shm-size=1g or more (or "
              "--ipc=host), as NCCL's troubleshooting guide asks.",
              paths::dev_shm, mib(*f.host.shm_bytes), gpus),
          evidence);
}

} // namespace gpudoctor::checks
