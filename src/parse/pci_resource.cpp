// A PCI device's BARs from sysfs: the `resource` file (one line per resource, "0x<start> 0x<end> 0x<flags>",
// drivers/pci/pci-sysfs.c resource_show) and `resourceN_resize` (the sizes a Resizable BAR offers, as the
// capability encodes them: bit n = 2^n MiB; Documentation/ABI/testing/sysfs-bus-pci).
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

std::optional<std::uint64_t> pci_resource_size(std::string_view text, std::size_t index) {
  std::optional<std::uint64_t> size;
  std::size_t line_no = 0;
  detail::for_each_line(text, [&](std::string_view line) {
    if (line_no++ != index) return line_no <= index;
    std::size_t pos = 0;
    auto start = text::to_int(detail::next_token(line, pos), 0);
    auto end = text::to_int(detail::next_token(line, pos), 0);
    if (start && end && *start >= 0 && *end > *start)
      size = static_cast<std::uint64_t>(*end) - static_cast<std::uint64_t>(*start) + 1;
    return false;
  });
  return size;
}

std::optional<std::uint64_t> pci_rebar_largest(std::string_view text) {
  std::string_view s = detail::trim_view(text);
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  auto mask = text::to_int(s, 16);
  if (!mask || *mask <= 0) return std::nullopt;
  int top = 63;
  while (top >= 0 && ((static_cast<std::uint64_t>(*mask) >> top) & 1U) == 0)
    --top;
  if (top > 40) return std::nullopt; // past 1 EiB: no BAR size
  return std::uint64_t{1} << (20 + top);
}

} // namespace gpudoctor::parse
