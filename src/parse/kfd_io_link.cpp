// /sys/class/kfd/kfd/topology/nodes/N/io_links/M/properties: "name value" lines, like the node properties.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <array>

namespace gpudoctor::parse {

KfdIoLink kfd_io_link_properties(std::string_view text) {
  KfdIoLink link;
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t pos = 0;
    std::string_view key = detail::next_token(line, pos);
    std::optional<long long> v = text::to_int(detail::next_token(line, pos));
    if (!v) return;
    if (key == "type")
      link.type = v;
    else if (key == "node_from")
      link.node_from = v;
    else if (key == "node_to")
      link.node_to = v;
    else if (key == "weight")
      link.weight = v;
    else if (key == "min_bandwidth")
      link.min_bandwidth = v;
    else if (key == "max_bandwidth")
      link.max_bandwidth = v;
    else if (key == "min_latency")
      link.min_latency = v;
    else if (key == "max_latency")
      link.max_latency = v;
    else if (key == "flags")
      link.flags = v;
  });
  return link;
}

// The HSA_IOLINKTYPE_* values the KFD reports (hsakmttypes.h).
std::string kfd_io_link_type_name(long long type) {
  static constexpr std::array<const char*, 17> k_names = {
      "undefined",     "HyperTransport", "PCIe",       "AMBA",     "MIPI", "QPI 1.1", "reserved",
      "reserved",      "RapidIO",        "InfiniBand", "reserved", "XGMI", "XGOP",    "GZ",
      "Ethernet RDMA", "RDMA other",     "other"};
  if (type >= 0 && type < static_cast<long long>(k_names.size()))
    return k_names[static_cast<std::size_t>(type)];
  return "type " + std::to_string(type);
}

} // namespace gpudoctor::parse
