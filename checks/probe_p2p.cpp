// probe.p2p: with several GPUs of one runtime, every pair should reach each other peer-to-peer, at least at
// half of what the slower of their PCIe links carries (NVLink and xGMI pairs are far above that).
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

constexpr double k_p2p_link_fraction = 0.5;

} // namespace

std::optional<double> p2p_floor(const Facts& f, const BackendProbes& b, int from, int to) {
  const ProbeDevice* a = b.device(from);
  const ProbeDevice* c = b.device(to);
  const Gpu* ga = a ? pci_gpu_of(f, a->pci_bus_id) : nullptr;
  const Gpu* gc = c ? pci_gpu_of(f, c->pci_bus_id) : nullptr;
  if (!ga || !gc) return std::nullopt;
  auto ra = pcie_gbps(ga->link_speed_max, ga->link_width_max),
       rc = pcie_gbps(gc->link_speed_max, gc->link_width_max);
  if (!ra || !rc) return std::nullopt;
  return std::min(*ra, *rc) * k_p2p_link_fraction;
}

namespace {

std::string peer_name(const Facts& f, const BackendProbes& b, int index) {
  std::string s = device_subject(f, b, index);
  return s.substr(0, s.find(' '));
}

// Whether the kernel command line is known to leave the IOMMU translating peer traffic (no iommu=pt, not
// off): then the unreachable peers have a fix to offer, kernel-iommu-pt.
bool iommu_translates(const Facts& f) {
  const auto& cmdline = f.os.kernel_params;
  return cmdline && !cmdline->iommu_passthrough() && !cmdline->iommu_off_by();
}

void judge_p2p(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  const int count = b.device_count.value_or(0);
  for (int from = 0; from < count; ++from) {
    std::vector<std::string> unreachable, slow, wrong, fine, evidence = {run_evidence(run)};
    for (const auto& p : b.peers) {
      if (p.from != from) continue;
      evidence.push_back(
          fmt::format("cmd {}: can_access {} -> {}: {}", run.key, p.from, p.to, p.can_access ? "yes" : "no"));
      if (!p.can_access) unreachable.push_back(peer_name(f, b, p.to));
    }
    for (const auto& x : b.p2p) {
      if (x.device != from) continue;
      std::string rate = x.best_gbps ? gbps(*x.best_gbps) : std::string("-");
      evidence.push_back(fmt::format("cmd {}: copy {} -> {} best {}, {}", run.key, x.device, x.peer, rate,
                                     x.verified ? "verified" : "NOT verified"));
      std::string peer = fmt::format("{} at {}", peer_name(f, b, x.peer), rate);
      auto floor = p2p_floor(f, b, from, x.peer);
      if (!x.verified)
        wrong.push_back(peer_name(f, b, x.peer));
      else if (floor && (!x.best_gbps || *x.best_gbps < *floor))
        slow.push_back(fmt::format("{} (floor {})", peer, gbps(*floor)));
      else
        fine.push_back(peer);
    }
    for (const ProbeError* e : errors_for(run, from))
      evidence.push_back(error_evidence(run, *e));
    const std::string subject = device_subject(f, b, from);
    if (!wrong.empty()) {
      out.add(Status::error, subject,
              fmt::format("Peer copies to {} came back wrong: check dmesg and the NVLink/xGMI or PCIe error "
                          "counters.",
                          text::join(wrong, ", ")),
              evidence, no_fix);
    } else if (!unreachable.empty() || !slow.empty()) {
      std::string msg;
      if (!unreachable.empty())
        msg = fmt::format("Cannot reach {} peer-to-peer: NCCL/RCCL then copy through host memory. Usual "
                          "causes: PCIe ACS on the bridges between them, the IOMMU translating peer traffic "
                          "(boot with iommu=pt, passthrough, to avoid that), a virtual machine, GPUs under "
                          "different CPU sockets, or consumer cards whose driver disables P2P. ",
                          text::join(unreachable, ", "));
      if (!slow.empty()) msg += fmt::format("Peer copies are slow to {}.", text::join(slow, ", "));
      const bool translating = !unreachable.empty() && iommu_translates(f);
      if (translating)
        evidence.push_back(fmt::format("{}: {}", f.os.kernel_cmdline.source, *f.os.kernel_cmdline));
      out.add(Status::warn, subject, text::trim(msg), evidence, translating ? FixChoice() : no_fix);
    } else if (fine.empty()) {
      out.add(Status::warn, subject, "No peer copy from this device could be measured", evidence, no_fix);
    } else {
      out.pass(subject, fmt::format("Reaches every peer directly: {}", text::join(fine, ", ")), evidence);
    }
  }
}

} // namespace

void probe_p2p(const CheckContext& ctx, Results& out) {
  for_each_run(ctx.facts, out, "p2p", Status::warn, judge_p2p);
}

} // namespace gpudoctor::checks
