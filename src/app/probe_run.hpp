// The probes of one run (check --probes, probe, bundle --probes, or a replayed snapshot that holds their
// outputs), with what gpudoctor does said on stderr: compiling always, progress only on a terminal.
#pragma once

#include "app/commands.hpp"
#include "facts/facts.hpp"
#include "system/system_view.hpp"

namespace gpudoctor {

void run_probes(SystemView& view, const CheckOptions& opt, Facts& facts);

} // namespace gpudoctor
