// Facts as the report's "facts" object (shared/spec/report-v1.md), grouped by area.
#pragma once

#include "facts/facts.hpp"
#include "util/json.hpp"

namespace gpudoctor {

// The whole environment is not included: only GPU-related variables (secrets stay out of reports).
Json facts_to_json(const Facts& facts);

} // namespace gpudoctor
