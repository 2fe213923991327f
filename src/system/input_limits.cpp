#include "system/input_limits.hpp"

#include <fmt/format.h>

namespace gpudoctor {

std::string size_words(std::uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  // Rounded only where the rounding cannot meet the bound it is compared with (1 MiB + 100 bytes is not "1.0
  // MiB").
  if (bytes >= (10u << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1u << 20));
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

std::size_t dpkg_package_count(std::string_view status) {
  std::size_t count = 0;
  for (std::size_t at = 0; at < status.size();) {
    if (status.compare(at, 8, "Package:") == 0) ++count;
    auto end = status.find('\n', at);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return count;
}

} // namespace gpudoctor
