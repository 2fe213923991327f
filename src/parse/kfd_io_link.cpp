// /sys/class/kfd/kfd/topology/nodes/N/io_links/M/properties: "name value" lines, like the node properties.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"

#include <array>
#include <utility>

namespace gpudoctor::parse {

namespace {

using IoLinkField = std::optional<long long> KfdIoLink::*;
constexpr std::pair<std::string_view, IoLinkField> k_io_link_fields[] = {
    {"type", &KfdIoLink::type},
    {"node_from", &KfdIoLink::node_from},
    {"node_to", &KfdIoLink::node_to},
    {"weight", &KfdIoLink::weight},
    {"min_bandwidth", &KfdIoLink::min_bandwidth},
    {"max_bandwidth", &KfdIoLink::max_bandwidth},
    {"min_latency", &KfdIoLink::min_latency},
    {"max_latency", &KfdIoLink::max_latency},
    {"flags", &KfdIoLink::flags},
};

} // namespace

KfdIoLink kfd_io_link_properties(std::string_view text) {
  KfdIoLink link;
  detail::for_each_number_property(
      text, [&](std::string_view name, long long v) { detail::set_named(link, k_io_link_fields, name, v); });
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
