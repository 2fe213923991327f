// Data files built into the binary: relative path -> content (cmake/embed_data.cmake), and the YAML ones
// also as the trees the build parsed and packed (src/tools/pack_data.cpp, util/yaml_doc.hpp's `pack`).
#pragma once

#include <map>
#include <string_view>

namespace gpudoctor {
const std::map<std::string_view, std::string_view>& embedded_data_files();
const std::map<std::string_view, std::string_view>& embedded_packed_trees();
} // namespace gpudoctor
