// JSON of the after-the-install facts: the kernel log's GPU events (never the log), GPU memory / clock /
// fabric health, the NVSwitch fabric, the installed NVIDIA module, the amdgpu firmware folder. The report's
// facts.health (facts_json.cpp).
#pragma once

#include "facts/facts.hpp"
#include "util/json.hpp"

namespace gpudoctor {

Json health_to_json(const Facts& f);

} // namespace gpudoctor
