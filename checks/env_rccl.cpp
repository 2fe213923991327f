// env.rccl-fine-grain: AMD GPUs that reach each other over PCIe only need HSA_FORCE_FINE_GRAIN_PCIE=1 for
// RCCL's peer-to-peer (knowledge.md §6.3; RCCL warns at init when it is not set).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// The peers a node has an XGMI link to; `up_only`: only links the firmware found at driver load (a link whose
// max_bandwidth is 0 did not come up: gpu.xgmi-links says so).
std::set<int> xgmi_peers(const KfdNode& node, bool up_only) {
  std::set<int> peers;
  for (const auto& link : node.io_links)
    if (link.xgmi() && link.node_to && !(up_only && link.down()))
      peers.insert(static_cast<int>(*link.node_to));
  return peers;
}

bool linked(const Gpu& a, const Gpu& b, bool up_only) {
  return xgmi_peers(*a.kfd, up_only).count(b.kfd->node_id) > 0 ||
         xgmi_peers(*b.kfd, up_only).count(a.kfd->node_id) > 0;
}

std::string link_name(const KfdLink& link) {
  if (link.type == 2) return "PCIe";
  if (link.xgmi()) return "XGMI";
  // Not "link type unknown": the compiler keeps a literal of 17 to 31 bytes as a 16-byte constant and the
  // rest, and lintian's spelling check read the first piece's last word as "unknow".
  return link.type ? fmt::format("link type {}", *link.type) : "an unknown link type";
}

} // namespace

void env_rccl_fine_grain(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::vector<const Gpu*> amd;
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == Vendor::amd) amd.push_back(&gpu);
  if (amd.size() < 2) return out.skip("", "fewer than two AMD GPUs: no peer-to-peer between them");
  for (const Gpu* gpu : amd)
    if (!gpu->kfd || !gpu->kfd->io_links_read)
      return out.skip("",
                      fmt::format("how the AMD GPUs connect is not known: {} has no KFD node with io_links",
                                  gpu->subject()));
  // Pairs with no XGMI link either way go over PCIe. A pair whose XGMI link is down goes over PCIe too, but
  // its cause is the link's (gpu.xgmi-links): it is named here, not judged again.
  std::vector<std::pair<const Gpu*, const Gpu*>> pcie;
  std::vector<std::string> down;
  for (std::size_t i = 0; i < amd.size(); ++i)
    for (std::size_t j = i + 1; j < amd.size(); ++j) {
      if (!linked(*amd[i], *amd[j], false))
        pcie.emplace_back(amd[i], amd[j]);
      else if (!linked(*amd[i], *amd[j], true))
        down.push_back(fmt::format("{}-{}", amd[i]->index, amd[j]->index));
    }
  if (pcie.empty())
    return out.pass("", down.empty() ? std::string("every pair of AMD GPUs has an XGMI link")
                                     : fmt::format("every pair of AMD GPUs has an XGMI link; the one between "
                                                   "GPUs {} is down (gpu.xgmi-links says what to do)",
                                                   text::join(down, ", ")));
  auto it = f.env.all.find("HSA_FORCE_FINE_GRAIN_PCIE");
  std::string setting = it == f.env.all.end() ? "HSA_FORCE_FINE_GRAIN_PCIE is not set"
                                              : fmt::format("HSA_FORCE_FINE_GRAIN_PCIE={}", it->second);
  std::vector<std::string> evidence;
  if (it != f.env.all.end()) evidence.push_back(env_evidence(ctx.facts, it->first, it->second));
  std::set<const Gpu*> involved;
  std::vector<std::string> pairs;
  for (const auto& [a, b] : pcie) {
    involved.insert(a);
    involved.insert(b);
    pairs.push_back(fmt::format("{}-{}", a->index, b->index));
  }
  for (const Gpu* gpu : amd) {
    if (!involved.count(gpu)) continue;
    evidence.push_back(gpu_evidence(*gpu));
    if (gpu->kfd->io_links.empty())
      evidence.push_back(fmt::format("{}: no links", paths::kfd_io_links(gpu->kfd->node_id)));
    for (const auto& link : gpu->kfd->io_links)
      evidence.push_back(fmt::format("{}: {} from node {} to node {}", link.source, link_name(link),
                                     link.node_from.value_or(gpu->kfd->node_id), link.node_to.value_or(-1)));
  }
  // ROCr takes the fine-grain flag only from the exact value 1.
  if (it != f.env.all.end() && it->second == "1")
    return out.pass(
        "",
        fmt::format("HSA_FORCE_FINE_GRAIN_PCIE=1 is set for the AMD GPUs that talk over PCIe ({})",
                    text::join(pairs, ", ")),
        evidence);
  out.add(
      Status::warn, "",
      fmt::format(
          "{} AMD GPUs reach each other over PCIe only (no XGMI link between GPUs {} in the KFD topology) "
          "and {}: RCCL warns at start that this \"can lead to low RCCL performance, system instability or "
          "hang\". Set HSA_FORCE_FINE_GRAIN_PCIE=1 for multi-GPU jobs (the GPUs also need peer-to-peer "
          "support and large BAR).",
          involved.size(), text::join(pairs, ", "), setting),
      evidence);
  out.act(Action::command({{"export", "HSA_FORCE_FINE_GRAIN_PCIE=1"}}));
}

} // namespace gpudoctor::checks
