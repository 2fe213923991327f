#include "parse/parsers.hpp"
#include "parse/scan.hpp"

#include <utility>

namespace gpudoctor::parse {

namespace {

using Field = std::optional<long long> KfdNode::*;
constexpr std::pair<std::string_view, Field> k_fields[] = {
    {"gfx_target_version", &KfdNode::gfx_target_version},
    {"vendor_id", &KfdNode::vendor_id},
    {"device_id", &KfdNode::device_id},
    {"location_id", &KfdNode::location_id},
    {"domain", &KfdNode::domain},
    {"simd_count", &KfdNode::simd_count},
    {"local_mem_size", &KfdNode::local_mem_size},
};

} // namespace

// "name value" lines. Older kernels print no gfx_target_version or domain line (the gfx900 sample); those
// stay empty. unique_id and hive_id can exceed a long long and are not read.
KfdNode kfd_node_properties(std::string_view text, int node_id) {
  KfdNode node;
  node.node_id = node_id;
  detail::for_each_number_property(text, [&](std::string_view name, long long v) {
    detail::set_named(node, k_fields, name, v);
    if (name == "drm_render_minor" && v >= -1 && v < 1'000'000) node.drm_render_minor = static_cast<int>(v);
  });
  return node;
}

} // namespace gpudoctor::parse
