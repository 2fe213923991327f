// The targets a mock probe program says it carries: the scenario's `targets`, else those of a CUDA 13.0 and a
// Debian ROCm 5.2 build (docs/probes.md), so that outputs do not depend on the toolkit of the test machine.
#pragma once

#include "mock_core.h"

#define GPUDOCTOR_PROBE_TARGETS mock::targets()
