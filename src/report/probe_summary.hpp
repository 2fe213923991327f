// The "Probes" lines of the text report's Machine block: where each runtime's probes came from and what it
// saw.
#pragma once

#include "facts/probe_facts.hpp"

#include <string>
#include <vector>

namespace gpudoctor {

std::vector<std::string> probe_summary_lines(const ProbeFacts& probes);

} // namespace gpudoctor
