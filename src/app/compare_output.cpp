#include "app/compare_output.hpp"

#include "system/output_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace gpudoctor {

bool use_color(ColorMode mode, const std::string& output) {
  if (mode != ColorMode::automatic) return mode == ColorMode::always;
  const char* no_color = std::getenv("NO_COLOR");
  return !(no_color && *no_color) && output.empty() && ::isatty(STDOUT_FILENO);
}

std::expected<void, Failure> emit(const std::string& content, const std::string& output) {
  if (output.empty()) {
    std::fwrite(content.data(), 1, content.size(), stdout);
    return {};
  }
  // 0600: a fleet's or a diff's report holds its machines' configuration, like each report.
  if (auto written = write_output(output, content, 0600); !written)
    return fail(Exit::usage, "{}", written.error());
  return {};
}

} // namespace gpudoctor
