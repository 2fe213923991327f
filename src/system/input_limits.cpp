#include "system/input_limits.hpp"

#include "system/shell_profiles.hpp"
#include "system/view_lookup.hpp"

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

std::optional<std::string> snapshot_over_input_limits(SystemView& view) {
  std::size_t listed = 0;
  std::uint64_t total = 0;
  for (const auto& path : shell_profile_paths(view, user_home(view), &listed)) {
    auto size = view.file_size(path);
    if (!size) continue;
    if (*size > k_max_profile_bytes)
      return fmt::format("{} holds {}, more than the {} a shell profile may hold: refused", path.substr(1),
                         size_words(*size), size_words(k_max_profile_bytes));
    total += *size;
  }
  // A live run that met more left the rest out, and its recording says so.
  if (listed > k_max_profile_files && !view.left_out("/etc/profile.d"))
    return fmt::format("etc/profile.d lists {} .sh files, more than the {} gpudoctor reads: refused", listed,
                       k_max_profile_files);
  if (total > k_max_profiles_bytes)
    return fmt::format("the shell profiles hold {} together, more than the {} gpudoctor reads: refused",
                       size_words(total), size_words(k_max_profiles_bytes));
  if (auto status = view.read_file("/var/lib/dpkg/status"))
    if (std::size_t packages = dpkg_package_count(*status); packages > k_max_packages)
      return fmt::format("var/lib/dpkg/status lists {} packages, more than the {} gpudoctor reads: refused",
                         packages, k_max_packages);
  return std::nullopt;
}

} // namespace gpudoctor
