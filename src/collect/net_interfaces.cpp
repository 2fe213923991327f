// The network interfaces in detail (sysfs) with their addresses (`ip -o addr show`), for NCCL's and RCCL's
// own choice of socket interface (env.nccl-socket-default). The markers of a virtual interface are the
// kernel's: a `device` link only for hardware-backed ones, `bridge/` for a bridge, `tun_flags` for tun/tap,
// iflink != ifindex for veth and tunnels (Documentation/ABI/testing/sysfs-class-net).
#include "collect/collectors.hpp"
#include "parse/parsers_layer.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <filesystem>

namespace gpudoctor {

namespace {

// A number sysfs writes in a file: decimal, or hex with its "0x" (`flags`).
std::optional<long long> number_file(SystemView& view, const std::string& path, int base = 10) {
  auto content = view.read_file(path);
  if (!content) return std::nullopt;
  std::string t = text::trim(*content);
  if (base == 16 && text::starts_with(t, "0x")) t = t.substr(2);
  return text::to_int(t, base);
}

NetInterface read_interface(SystemView& view, const std::string& name) {
  NetInterface n;
  n.name = name;
  const std::string dir = std::string(paths::net_class) + "/" + name;
  if (auto type = number_file(view, dir + "/type"); type && *type >= 0 && *type <= 0xffff)
    n.type = static_cast<int>(*type);
  if (auto flags = number_file(view, dir + "/flags", 16); flags && *flags >= 0 && *flags <= 0xffffffff)
    n.flags = static_cast<unsigned>(*flags);
  n.device = view.read_link(dir + "/device").has_value();
  if (n.device)
    if (auto driver = view.read_link(dir + "/device/driver"))
      n.driver = std::filesystem::path(*driver).filename().string().substr(0, 64);
  n.bridge = view.list_dir(dir + "/bridge").has_value();
  n.tun = view.read_file(dir + "/tun_flags").has_value();
  auto index = number_file(view, dir + "/ifindex"), link = number_file(view, dir + "/iflink");
  n.peer_link = index && link && *index != *link;
  return n;
}

} // namespace

void collect_net_interfaces(SystemView& view, const CollectOptions& opt, NetworkFacts& net) {
  if (!net.interfaces) return;
  for (const auto& name : *net.interfaces) {
    if (net.details.size() >= k_max_net_interfaces) break;
    net.details.push_back(read_interface(view, name));
  }
  auto r = view.run(keyed_command_spec(view, KeyedCommand::ip_addr, opt.tool_timeout));
  if (!r.ok()) return;
  net.addresses_read = true;
  for (auto& a : parse::ip_addresses(r.out))
    for (auto& n : net.details)
      if (n.name == a.interface) {
        if (n.addresses.size() < 64) n.addresses.push_back(std::move(a));
        break;
      }
}

} // namespace gpudoctor
