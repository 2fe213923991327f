// The "Machine" block of the text report: one line per area saying what is there, in words.
#pragma once

#include "facts/facts.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gpudoctor {

std::vector<std::pair<std::string, std::vector<std::string>>> machine_summary(const Facts& f);

} // namespace gpudoctor
