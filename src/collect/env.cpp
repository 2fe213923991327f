#include "collect/collectors.hpp"
#include "util/text.hpp"

namespace gpudoctor {

void collect_env(SystemView& view, EnvFacts& env) {
  env.all = view.environment();
  if (auto it = env.all.find("PATH"); it != env.all.end()) env.path_entries = text::split(it->second, ':');
  if (auto it = env.all.find("LD_LIBRARY_PATH"); it != env.all.end())
    env.ld_library_path_entries = text::split(it->second, ':');
}

} // namespace gpudoctor
