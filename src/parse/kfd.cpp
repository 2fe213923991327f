#include "parse/parsers.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

// "name value" lines. Older kernels print no gfx_target_version or domain line (the gfx900 sample); those
// stay empty. unique_id and hive_id can exceed a long long and are not read.
KfdNode kfd_node_properties(std::string_view text, int node_id) {
  KfdNode node;
  node.node_id = node_id;
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t pos = 0;
    std::string_view key = detail::next_token(line, pos);
    std::optional<long long> v = text::to_int(detail::next_token(line, pos));
    if (!v) return;
    if (key == "gfx_target_version")
      node.gfx_target_version = v;
    else if (key == "vendor_id")
      node.vendor_id = v;
    else if (key == "device_id")
      node.device_id = v;
    else if (key == "location_id")
      node.location_id = v;
    else if (key == "domain")
      node.domain = v;
    else if (key == "simd_count")
      node.simd_count = v;
    else if (key == "local_mem_size")
      node.local_mem_size = v;
    else if (key == "drm_render_minor" && *v >= -1 && *v < 1'000'000)
      node.drm_render_minor = static_cast<int>(*v);
  });
  return node;
}

} // namespace gpudoctor::parse
