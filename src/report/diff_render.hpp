// `gpudoctor diff` for people (text), for programs (JSON, format "gpudoctor-diff" 1: docs/fleet.md) and as
// one self-contained page (HTML). Every string from a report is escaped for its output (util/escape).
#pragma once

#include "fleet/report_diff.hpp"
#include "util/json.hpp"

#include <string>

namespace gpudoctor {

std::string render_diff_text(const ReportDiff& diff, bool color);
Json diff_to_json(const ReportDiff& diff);
std::string render_diff_html(const ReportDiff& diff);

// "(none)" for a value one side does not have, `""` for an empty one, else the value.
std::string diff_value(const PropertyChange& change, const std::optional<std::string>& value);

} // namespace gpudoctor
