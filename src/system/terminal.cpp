#include "system/terminal.hpp"

#include "util/text.hpp"

#include <cstdlib>
#include <string_view>
#include <sys/ioctl.h>
#include <unistd.h>

namespace gpudoctor::terminal {

bool is_terminal(int fd) {
  return ::isatty(fd) == 1;
}

std::size_t columns(int fd) {
  if (!is_terminal(fd)) return 0;
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  const char* from_env = std::getenv("COLUMNS");
  if (!from_env) return 0;
  auto n = text::to_int(from_env);
  return n && *n >= 20 && *n <= 1000 ? static_cast<std::size_t>(*n) : 0;
}

bool colour_allowed() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::string_view(term) == "dumb");
}

} // namespace gpudoctor::terminal
