// env.nccl-socket-default: with NCCL_SOCKET_IFNAME unset, the interfaces NCCL and RCCL take by their own
// default (knowledge nccl_socket_tiers), judged for a virtual interface (net_interface_kinds) or one without
// a routable address while a hardware interface with a routable address is there. Bootstrap takes the first
// interface of the winning tier and the socket transport all of them, so one bad interface in it is enough.
#include "checks/common.hpp"
#include "checks/nccl_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

constexpr unsigned k_iff_up = 0x1;

const NetInterfaceKindRow* virtual_kind(const Knowledge& kb, const NetInterface& n) {
  for (const auto& row : kb.env.net_interface_kinds) {
    bool hit = row.marker == "bridge"      ? n.bridge
               : row.marker == "tun"       ? n.tun
               : row.marker == "peer-link" ? n.peer_link
               : row.marker == "no-device" ? !n.device
                                           : n.type && fmt::format("type {}", *n.type) == row.marker;
    if (hit) return &row;
  }
  return nullptr;
}

bool routable(const IpAddress& a) {
  return a.scope == "global" && !(a.family == 4 && text::starts_with(a.address, "169.254."));
}

bool has_routable(const NetInterface& n) {
  return std::ranges::any_of(n.addresses, routable);
}

std::string addresses_text(const NetInterface& n) {
  std::vector<std::string> parts;
  for (const auto& a : n.addresses)
    parts.push_back(fmt::format("{}/{} scope {}", a.address, a.prefix, a.scope.empty() ? "?" : a.scope));
  return parts.empty() ? "no address" : text::join(parts, ", ");
}

} // namespace

void env_nccl_socket_default(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.count(Vendor::nvidia) + f.count(Vendor::amd) == 0) return out.skip("", "no GPU");
  if (nccl_setting(f, "NCCL_SOCKET_IFNAME"))
    return out.skip("", "NCCL_SOCKET_IFNAME is set: env.nccl-ifname-missing judges what it selects");
  if (nccl_setting(f, "NCCL_COMM_ID"))
    return out.skip("", "NCCL_COMM_ID is set: NCCL bootstraps on the interface in its address's subnet");
  if (f.network.details.empty() || !f.network.addresses_read)
    return out.skip("", "the network interfaces' addresses were not read (ip -o addr show)");
  // An interface NCCL can take: it has an address and is up (NCCL 2.28.3+ also wants it running).
  std::vector<const NetInterface*> usable;
  for (const auto& n : f.network.details)
    if (!n.addresses.empty() && (!n.flags || (*n.flags & k_iff_up))) usable.push_back(&n);
  std::vector<const NetInterface*> picks;
  std::string tier;
  for (const auto& row : ctx.kb.env.nccl_socket_tiers) {
    IfList list = parse_iflist(row.match);
    for (const auto* n : usable)
      if (matches(list, n->name)) picks.push_back(n);
    if (!picks.empty()) {
      tier = row.match;
      break;
    }
  }
  if (picks.empty()) return out.skip("", "no interface with an address: NCCL finds none to use");
  std::vector<std::string> evidence;
  for (const auto* n : usable) {
    const auto* kind = virtual_kind(ctx.kb, *n);
    evidence.push_back(fmt::format(
        "{}/{}: {}{}; cmd ip-addr: {}", f.network.interfaces_source, n->name, kind ? kind->kind : "hardware",
        n->driver.empty() ? std::string() : fmt::format(" ({})", n->driver), addresses_text(*n)));
  }
  std::vector<std::string> bad, good;
  for (const auto* n : picks) {
    const auto* kind = virtual_kind(ctx.kb, *n);
    if (kind)
      bad.push_back(fmt::format("{} is {}", n->name, kind->kind));
    else if (!has_routable(*n))
      bad.push_back(fmt::format("{} has only a link-local or host address", n->name));
  }
  for (const auto* n : usable)
    if (!virtual_kind(ctx.kb, *n) && has_routable(*n)) good.push_back(n->name);
  std::vector<std::string> pick_names;
  for (const auto* n : picks)
    pick_names.push_back(n->name);
  if (bad.empty())
    return out.pass("",
                    fmt::format("NCCL_SOCKET_IFNAME is unset: NCCL/RCCL's default (tier \"{}\") takes {}",
                                tier, text::join(pick_names, ", ")),
                    evidence);
  if (good.empty()) // a container's own eth0 is a veth: then it is the way out
    return out.pass("",
                    fmt::format("NCCL_SOCKET_IFNAME is unset: NCCL/RCCL's default takes {}, and no hardware "
                                "interface with a routable address is here to prefer",
                                text::join(pick_names, ", ")),
                    evidence);
  out.add(
      Status::warn, "",
      fmt::format("NCCL_SOCKET_IFNAME is unset, so NCCL and RCCL choose by their default (the \"{}\" tier): "
                  "they would take {}, and {}. Jobs across machines then hang or time out connecting "
                  "(\"Call to connect returned Connection timed out\"). Name the interface that reaches the "
                  "other machines: {}.",
                  tier, text::join(pick_names, " and "), text::join(bad, "; "), text::join(good, ", ")),
      evidence);
  out.act(Action::command({{"export", "NCCL_SOCKET_IFNAME==" + text::join(good, ",")}}));
}

} // namespace gpudoctor::checks
