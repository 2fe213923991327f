// Probe facts as the report's facts.probes object (null when probes did not run).
#pragma once

#include "facts/probe_facts.hpp"
#include "util/json.hpp"

namespace gpudoctor {

Json probe_facts_to_json(const ProbeFacts& probes);

} // namespace gpudoctor
