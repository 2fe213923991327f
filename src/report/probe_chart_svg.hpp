// The probe figures drawn against their floors (the check page, where probes ran): per GPU a bar for device
// memory (the best of its tests) and for pinned host copies each way, each with a mark at the floor its probe
// check judges it against (checks/probe_common.hpp). An inline SVG; every text escaped.
#pragma once

#include "facts/facts.hpp"

#include <string>

namespace gpudoctor {

// Empty when no probe measured a bandwidth.
std::string probe_chart_svg(const Facts& f);

} // namespace gpudoctor
