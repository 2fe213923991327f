#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

namespace gpudoctor {

void collect_modules(SystemView& view, KernelModules& modules) {
  auto text = view.read_file(paths::modules);
  if (!text) return;
  modules.readable = true;
  modules.source = paths::modules;
  modules.loaded = parse::proc_modules(*text);
  // Out-of-tree modules carry MODULE_VERSION; in-tree amdgpu and nouveau usually have none.
  for (const char* name : {"nvidia", "amdgpu"})
    if (modules.has(name))
      if (auto version = view.read_file(paths::module_version(name)))
        modules.loaded[name] = text::trim(*version);
}

} // namespace gpudoctor
