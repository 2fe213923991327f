// The framework probe (probes/framework_probe.py, built into the binary): the Python script that the python3
// in use runs with -c. JSON lines on stdout, probe "torch".
#pragma once

namespace gpudoctor::probe {

const char* framework_script();

} // namespace gpudoctor::probe
