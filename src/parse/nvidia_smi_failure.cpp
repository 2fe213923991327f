#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

using Kind = NvidiaSmiFailure::Kind;

// Specific kinds win over `other`; among them, the first in this order.
int rank(Kind k) {
  switch (k) {
  case Kind::version_mismatch:
    return 4;
  case Kind::no_driver:
    return 3;
  case Kind::no_devices:
    return 2;
  case Kind::none:
    break;
  }
  return 0;
}

Kind classify(std::string_view line) {
  if (line.find("Driver/library version mismatch") != std::string_view::npos) return Kind::version_mismatch;
  if (line.find("couldn't communicate with the NVIDIA driver") != std::string_view::npos)
    return Kind::no_driver;
  if (line == "No devices were found") return Kind::no_devices;
  // Other failures are named by knowledge tool_errors.yaml (the link stage), whatever the exit status.
  return Kind::none;
}

} // namespace

NvidiaSmiFailure nvidia_smi_failure(std::string_view output) {
  NvidiaSmiFailure out;
  detail::for_each_line(output, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    // Printed on the line after the mismatch: "NVML library version: 550.144".
    if (auto v = detail::value_after(line, "NVML library version"); v && out.nvml_library_version.empty()) {
      out.nvml_library_version = std::string(v->substr(0, 64));
      return;
    }
    Kind k = classify(line);
    if (rank(k) > rank(out.kind)) {
      out.kind = k;
      out.message = std::string(line.substr(0, 512));
    }
  });
  return out;
}

} // namespace gpudoctor::parse
