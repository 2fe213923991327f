// rdma.memlock and env.nccl-ib-hca-missing: what NCCL/RCCL over InfiniBand or RoCE needs from the machine:
// memory it may pin (ibv_reg_mr) and the HCAs and ports NCCL_IB_HCA names (NCCL's environment-variable
// documentation, NCCL_IB_HCA: "^" excludes, "=" matches names exactly, ":<port>" picks a port).
#include "checks/common.hpp"
#include "checks/nccl_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool names(const HcaList& l, const HcaEntry& e, const std::string& device) {
  return l.exact ? device == e.name : text::starts_with(device, e.name);
}

std::vector<const IbPort*> ports_of(const Facts& f, const std::string& device) {
  std::vector<const IbPort*> out;
  for (const auto& p : f.host.ib_ports)
    if (p.device == device) out.push_back(&p);
  return out;
}

std::string port_text(const IbPort& p) {
  return fmt::format("{}:{} {}{}", p.device, p.port, p.state.empty() ? "?" : p.state,
                     p.link_layer.empty() ? "" : fmt::format(" ({})", p.link_layer));
}

} // namespace

void rdma_memlock(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.network.ib_devices.empty()) return out.skip("", "no InfiniBand/RoCE device (/sys/class/infiniband)");
  if (!f.host.memlock_soft) return out.skip("", "the memlock limit (/proc/self/limits) could not be read");
  std::vector<std::string> evidence = {
      fmt::format("{}: {}", f.network.ib_source, text::join(f.network.ib_devices, " ")),
      fmt::format("{}: Max locked memory {} {}", f.host.memlock_source, *f.host.memlock_soft,
                  f.host.memlock_hard.value_or("?"))};
  if (*f.host.memlock_soft == "unlimited") return out.pass("", "the memlock limit is unlimited", evidence);
  auto bytes = text::to_int(*f.host.memlock_soft, 10);
  std::string limit = bytes ? fmt::format("{} KiB", *bytes / 1024) : *f.host.memlock_soft;
  out.add(Status::warn, "",
          fmt::format(
              "This machine has InfiniBand/RoCE devices ({}) but may lock only {} of memory: NCCL and RCCL "
              "register their buffers with the HCA and fail (\"ibv_reg_mr failed\", \"Cannot allocate "
              "memory\") or fall back to slow paths. Raise it to unlimited (memlock in "
              "/etc/security/limits.conf, LimitMEMLOCK=infinity for a service, --ulimit memlock=-1 for a "
              "container).",
              text::join(f.network.ib_devices, ", "), limit),
          evidence);
}

void env_nccl_ib_hca_missing(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto s = nccl_setting(f, "NCCL_IB_HCA");
  if (!s) return out.pass("", "NCCL_IB_HCA is not set: NCCL uses the HCAs it finds");
  if (!f.env.nccl_ib_hca) return out.skip(s->name, "NCCL_IB_HCA was not read (no link stage ran)");
  const HcaList& list = *f.env.nccl_ib_hca;
  if (list.entries.empty())
    return out.skip(s->name, fmt::format("{} names no HCA (see env.nccl-invalid)", s->name));
  std::vector<std::string> evidence = {
      nccl_evidence(ctx.facts, *s),
      fmt::format("{}: {}", f.network.ib_source,
                  f.network.ib_devices.empty() ? "(no devices)" : text::join(f.network.ib_devices, " "))};
  for (const auto& p : f.host.ib_ports)
    evidence.push_back(fmt::format("{}: {}", p.source, port_text(p)));
  const auto& devices = f.network.ib_devices;
  if (list.exclude) {
    std::vector<std::string> left;
    for (const auto& d : devices)
      if (std::ranges::none_of(list.entries, [&](const HcaEntry& e) { return names(list, e, d); }))
        left.push_back(d);
    if (left.empty())
      return out.add(
          Status::error, s->name,
          fmt::format("{}={} ({}) excludes every InfiniBand/RoCE device here ({}): NCCL finds no HCA and "
                      "falls back to TCP sockets, or fails when NCCL_IB_DISABLE is not an option.",
                      s->name, s->value, nccl_where(ctx.facts, *s),
                      devices.empty() ? "none" : text::join(devices, ", ")),
          evidence);
    return out.pass(s->name, fmt::format("{} leaves {}", s->name, text::join(left, ", ")), evidence);
  }
  std::vector<std::string> problems, fine;
  for (const auto& e : list.entries) {
    std::vector<std::string> matched;
    for (const auto& d : devices)
      if (names(list, e, d)) matched.push_back(d);
    std::string what = e.port ? fmt::format("{}:{}", e.name, *e.port) : e.name;
    if (matched.empty()) {
      problems.push_back(fmt::format("{} matches no device", what));
      continue;
    }
    bool active = false, known = false;
    for (const auto& d : matched)
      for (const IbPort* p : ports_of(f, d)) {
        if (e.port && p->port != *e.port) continue;
        known = true;
        active = active || p->state == "ACTIVE";
      }
    if (e.port && !known && !f.host.ib_ports.empty())
      problems.push_back(fmt::format("{} has no port {}", text::join(matched, "/"), *e.port));
    else if (known && !active)
      problems.push_back(fmt::format("{} has no ACTIVE port", what));
    else
      fine.push_back(what);
  }
  if (problems.empty())
    return out.pass(s->name, fmt::format("{}={} names {}", s->name, s->value, text::join(fine, ", ")),
                    evidence);
  out.add(
      Status::error, s->name,
      fmt::format("{}={} ({}): {}. NCCL skips what it cannot use and, with nothing left, falls back to TCP "
                  "sockets at a fraction of the bandwidth (or fails: \"NET/IB : No device found\"). Name the "
                  "HCAs and ACTIVE ports /sys/class/infiniband has ({}).",
                  s->name, s->value, nccl_where(ctx.facts, *s), text::join(problems, "; "),
                  devices.empty() ? "none here" : text::join(devices, ", ")),
      evidence);
}

} // namespace gpudoctor::checks
