#include "probe/framework_script.hpp"

#include "util/embedded.hpp"

#include <string>

namespace gpudoctor::probe {

const char* framework_script() {
  static const std::string script = [] {
    auto& files = embedded_data_files();
    auto it = files.find("probes/framework_probe.py");
    return it == files.end() ? std::string("import sys; sys.exit(3)") : std::string(it->second);
  }();
  return script.c_str();
}

} // namespace gpudoctor::probe
