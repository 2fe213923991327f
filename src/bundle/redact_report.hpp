// Redaction of a JSON report that is kept on the machine (`check --history`, docs/fleet.md "History"): the
// same rules a bundle's snapshot gets (redact.hpp), applied to the report instead of to what it was judged
// from. A variable's value by its name; every other text of the report (evidence quotes files and command
// outputs) for credentials in their syntax and secret shapes, never NAME=value by its name (a package
// "tiktoken==0.14.0" is data).
#pragma once

#include "util/json_value.hpp"

namespace gpudoctor {

struct Knowledge;

// Rewrites `report` in place and returns how many values it changed. `kb`: the variables the checks judge
// keep their values but for secret shapes (null: the built-in tables).
std::size_t redact_report(Json& report, const Knowledge* kb);

} // namespace gpudoctor
