// Lookups made through a SystemView, so they answer the same live and on a replay: a program on the PATH, the
// end of a chain of links. Shared by the collectors and the probe builder.
#pragma once

#include "system/system_view.hpp"

#include <optional>
#include <string>

namespace gpudoctor {

// The first `name` on the PATH of `view`'s environment, found with stat.
std::optional<std::string> find_on_path(SystemView& view, const std::string& name);

// The home of the user the view runs as: the identity's, or $HOME; trailing slashes dropped. Empty when
// neither says.
std::string user_home(SystemView& view);

// Where a chain of links ends (update-alternatives: /usr/local/cuda -> /etc/alternatives/cuda -> ...);
// empty when `path` is no link.
std::optional<std::string> final_link_target(SystemView& view, const std::string& path);

} // namespace gpudoctor
