// Reads the JSON lines the probes print (docs/probes.md) into probe facts. Never throws: a line that is not
// a probe's JSON object is counted in ProbeRun::bad_lines and skipped.
#pragma once

#include "facts/probe_facts.hpp"

#include <string>
#include <string_view>

namespace gpudoctor::probe {

// One compiled probe's stdout: fills `run` (end line, errors, notes) and what it measured into `backend`.
void read_probe_output(std::string_view text, ProbeRun& run, BackendProbes& backend);

// The framework probe's stdout (probe "torch").
void read_framework_output(std::string_view text, FrameworkProbe& out);

// A PCI bus id as runtimes print it ("00000000:19:00.0", "0000:19:00.0") in sysfs form "0000:19:00.0";
// empty when it is not one.
std::string normalise_bus_id(std::string_view id);

} // namespace gpudoctor::probe
