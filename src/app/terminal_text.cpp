#include "app/terminal_text.hpp"

#include "system/terminal.hpp"
#include "util/wrap.hpp"

#include <unistd.h>

namespace gpudoctor {

std::string fit_to_stdout(std::string_view text) {
  return wrap_to_width(text, terminal::columns(STDOUT_FILENO));
}

bool use_color(ColorMode mode, const std::string& output) {
  if (mode != ColorMode::automatic) return mode == ColorMode::always;
  return output.empty() && terminal::is_terminal(STDOUT_FILENO) && terminal::colour_allowed();
}

} // namespace gpudoctor
