// The GPUs the probes saw, as a picture for the HTML report (inline SVG): each GPU under its NUMA node with
// its PCIe link and the host copy bandwidths measured, and the peer-to-peer matrix (access, and the
// bandwidth where it was measured). Every text in it is escaped.
#pragma once

#include "facts/facts.hpp"

#include <string>

namespace gpudoctor {

// One <figure> per runtime whose probes saw a device; "" when none did (no probes ran).
std::string topology_svg(const Facts& facts);

} // namespace gpudoctor
