// `gpudoctor fleet` for people (text), for programs (JSON, format "gpudoctor-fleet" 1: docs/fleet.md) and as
// one self-contained page (HTML). Every string from a report is escaped for its output (util/escape).
#pragma once

#include "fleet/fleet.hpp"
#include "util/json.hpp"

#include <string>

namespace gpudoctor {

struct FleetTextOptions {
  bool verbose = false; // every node, every name, and the rows that agree one per line
  bool color = false;
};
std::string render_fleet_text(const Fleet& fleet, const FleetTextOptions& opt);

Json fleet_to_json(const Fleet& fleet);

std::string render_fleet_html(const Fleet& fleet);

} // namespace gpudoctor
