#include "app/compare_output.hpp"

#include "app/terminal_text.hpp"
#include "system/output_file.hpp"

#include <cstdio>

namespace gpudoctor {

std::expected<void, Failure> emit(const std::string& content, const std::string& output, bool text) {
  if (output.empty()) {
    if (text)
      print_fitted(content);
    else
      std::fwrite(content.data(), 1, content.size(), stdout);
    return {};
  }
  // 0600: a fleet's or a diff's report holds its machines' configuration, like each report.
  if (auto written = write_output(output, content, 0600); !written)
    return fail(Exit::usage, "{}", written.error());
  return {};
}

} // namespace gpudoctor
