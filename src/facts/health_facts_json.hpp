// JSON of the after-the-install facts: the kernel log's GPU events (never the log), GPU memory / clock /
// fabric health, the NVSwitch fabric, the installed NVIDIA module, the amdgpu firmware folder. The report's
// facts.health (facts_json.cpp).
#pragma once

#include "facts/facts.hpp"
#include "util/json.hpp"

namespace gpudoctor {

Json health_to_json(const Facts& f);
// The report's facts.history: this boot's id (a later run's previous reading compares within one boot) and
// which kept report the counters were compared with.
Json history_to_json(const HistoryFacts& h);

} // namespace gpudoctor
