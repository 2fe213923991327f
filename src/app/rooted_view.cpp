#include "app/rooted_view.hpp"

namespace gpudoctor {

CommandResult RootedView::run(const CommandSpec& spec) {
  CommandResult r;
  r.key = spec.key;
  r.argv = spec.argv;
  r.found = false; // not run: replayed as "command not found"
  return r;
}

std::map<std::string, std::string> RootedView::environment() {
  auto id = m_files.identity();
  return {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
          {"HOME", id.home.empty() ? "/root" : id.home},
          {"USER", id.user},
          {"LANG", "C.UTF-8"}};
}

} // namespace gpudoctor
