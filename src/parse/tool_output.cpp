// The lines of a vendor tool's output that name a failure (knowledge tool_errors.yaml gives the parts).
#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

std::vector<PartLine> lines_containing(std::string_view text, std::span<const std::string_view> parts,
                                       std::size_t max) {
  std::vector<PartLine> out;
  detail::for_each_line(text, [&](std::string_view raw) {
    if (out.size() >= max) return;
    std::string_view line = detail::trim_view(raw);
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (!parts[i].empty() && line.find(parts[i]) != std::string_view::npos) {
        out.push_back({i, std::string(line.substr(0, 512))});
        return;
      }
  });
  return out;
}

} // namespace gpudoctor::parse
