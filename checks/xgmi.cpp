// gpu.xgmi-links: an XGMI link of the KFD topology that the firmware found down when the driver loaded.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

const Gpu* gpu_at_node(const Facts& f, long long node) {
  for (const auto& g : f.gpus)
    if (g.kfd && g.kfd->node_id == node) return &g;
  return nullptr;
}

} // namespace

// The KFD gives a GPU an XGMI io_link to every GPU of its hive; its bandwidth is the number of links the
// firmware's XGMI topology reported at driver load times their speed, so 0 means no link came up to that peer
// (kfd_crat.c, kfd_create_vcrat_image_gpu; the topology is not read again while the driver stays loaded).
void gpu_xgmi_links(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.kfd || !gpu.kfd->io_links_read) continue;
    std::vector<std::string> evidence, down;
    std::size_t xgmi = 0;
    for (const auto& link : gpu.kfd->io_links) {
      if (!link.xgmi() || !link.node_to) continue;
      ++xgmi;
      const Gpu* peer = gpu_at_node(f, *link.node_to);
      std::string to = peer ? fmt::format("{} (KFD node {})", peer->subject(), *link.node_to)
                            : fmt::format("KFD node {}", *link.node_to);
      evidence.push_back(fmt::format("{}: XGMI to node {}, weight {}, max_bandwidth {}", link.source,
                                     *link.node_to, link.weight ? std::to_string(*link.weight) : "unknown",
                                     link.max_bandwidth ? std::to_string(*link.max_bandwidth) : "unknown"));
      if (link.down()) down.push_back(to);
    }
    if (xgmi == 0) continue;
    any = true;
    if (down.empty()) {
      out.pass(gpu.subject(), fmt::format("{} XGMI link{} with bandwidth", xgmi, xgmi == 1 ? "" : "s"),
               evidence);
      continue;
    }
    out.add(
        Status::warn, gpu.subject(),
        fmt::format("The XGMI link{} to {} reported no bandwidth: when the driver loaded, the firmware found "
                    "no working XGMI link to {}, so what these GPUs send each other goes over PCIe, "
                    "much slower, or fails. A loose or failed XGMI bridge, or a board fault, does this.",
                    down.size() == 1 ? "" : "s", text::join(down, ", "),
                    down.size() == 1 ? "that GPU" : "those GPUs"),
        evidence);
    out.act(
        Action::step("Reboot (the firmware trains the XGMI links again at driver load); if the link stays "
                     "down, power the machine off, reseat the XGMI bridge (or have the board serviced), and "
                     "check again."));
  }
  if (!any) out.skip("", "no AMD GPU has XGMI links in the KFD topology");
}

} // namespace gpudoctor::checks
