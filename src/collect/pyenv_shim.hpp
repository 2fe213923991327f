// pyenv shims are bash scripts that start `pyenv exec`, which costs ten times what python itself does to
// start. Resolving the shim by pyenv's documented rules gives the same interpreter without running bash.
#pragma once

#include "system/system_view.hpp"

#include <optional>
#include <string>

namespace gpudoctor {

struct ShimTarget {
  std::string interpreter; // $PYENV_ROOT/versions/<version>/bin/<program>
  std::string version;     // the pyenv version name
  std::string how;         // "PYENV_VERSION", "/home/me/project/.python-version", "/root/.pyenv/version"
};

// When `path` is a pyenv shim for `program` whose version pyenv would pick is a plain installed version,
// the interpreter it would run. Empty when `path` is no shim, or pyenv would pick "system", or anything is
// unclear: then the caller runs the shim itself.
std::optional<ShimTarget> resolve_pyenv_shim(SystemView& view, const std::string& path,
                                             const std::string& program);

} // namespace gpudoctor
