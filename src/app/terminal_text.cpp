#include "app/terminal_text.hpp"

#include "system/terminal.hpp"
#include "util/wrap.hpp"

#include <cstdio>
#include <unistd.h>

namespace gpudoctor {

void print_fitted(std::string_view text) {
  std::string shown = wrap_to_width(text, terminal::columns(STDOUT_FILENO));
  std::fwrite(shown.data(), 1, shown.size(), stdout);
}

bool use_color(ColorMode mode, const std::string& output) {
  if (mode != ColorMode::automatic) return mode == ColorMode::always;
  return output.empty() && terminal::is_terminal(STDOUT_FILENO) && terminal::colour_allowed();
}

} // namespace gpudoctor
