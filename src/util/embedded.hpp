// Data files built into the binary (cmake/embed_data.cmake): relative path -> content.
#pragma once

#include <map>
#include <string>

namespace gpudoctor {
const std::map<std::string, std::string>& embedded_data_files();
} // namespace gpudoctor
