// NCCL_IB_HCA as NCCL reads it: "[^][=]name[:port][,name[:port]...]".
#include "parse/parsers_layer.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

HcaList nccl_ib_hca(std::string_view value) {
  HcaList l;
  if (!value.empty() && value[0] == '^') l.exclude = true, value.remove_prefix(1);
  if (!value.empty() && value[0] == '=') l.exact = true, value.remove_prefix(1);
  for (const auto& e : text::split(value, ',')) {
    auto fields = text::split(e, ':', true);
    if (fields.empty() || fields[0].empty()) continue;
    HcaEntry h{fields[0], std::nullopt};
    if (fields.size() > 1)
      if (auto p = text::to_int(fields[1], 10); p && *p >= 0 && *p <= 65535) h.port = static_cast<int>(*p);
    l.entries.push_back(std::move(h));
  }
  return l;
}

} // namespace gpudoctor::parse
