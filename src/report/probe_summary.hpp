// The "Probes" lines of the text report's Machine block: where each runtime's probes came from and what it saw.
#pragma once

#include <string>
#include <vector>

#include "facts/probe_facts.hpp"

namespace gpudoctor {

std::vector<std::string> probe_summary_lines(const ProbeFacts& probes);

} // namespace gpudoctor
