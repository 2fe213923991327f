#include "app/cli_values.hpp"

#include <fmt/format.h>

namespace gpudoctor {

bool is_version_text(std::string_view s) {
  int numbers = 0;
  std::size_t digits = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      if (++digits > 6) return false;
    } else if (c == '.') {
      if (digits == 0) return false;
      ++numbers;
      digits = 0;
    } else {
      return false;
    }
  }
  return digits > 0 && numbers + 1 <= 4;
}

std::string version_problem(const std::string& value) {
  if (is_version_text(value)) return {};
  return fmt::format("takes a version (digits and dots, like 12.8 or 570.124.06), not {:?}", value);
}

} // namespace gpudoctor
