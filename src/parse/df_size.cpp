// `df -Pk PATH` (POSIX output format): a header, then "Filesystem 1024-blocks Used Available Capacity
// Mounted". A long file system name does not wrap with -P.
#include "parse/parsers_layer.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

std::optional<std::uint64_t> df_size_kib(std::string_view text) {
  std::optional<std::uint64_t> out;
  bool header = true;
  detail::for_each_line(text, [&](std::string_view line) {
    if (detail::trim_view(line).empty()) return true;
    if (header) {
      header = false;
      if (line.find("blocks") != std::string_view::npos) return true; // the header row
    }
    std::size_t pos = 0;
    (void)detail::next_token(line, pos); // file system
    std::string_view blocks = detail::next_token(line, pos);
    if (blocks.empty() || blocks.size() > 19) return false;
    std::uint64_t v = 0;
    for (char c : blocks) {
      if (!detail::is_digit(c)) return false;
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    out = v;
    return false;
  });
  return out;
}

} // namespace gpudoctor::parse
