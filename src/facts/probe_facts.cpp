#include "facts/probe_facts.hpp"

#include "util/find_row.hpp"

namespace gpudoctor {

std::optional<double> ProbeDevice::peak_gbps() const {
  if (!memory_clock_khz || !memory_bus_bits || *memory_clock_khz <= 0 || *memory_bus_bits <= 0)
    return std::nullopt;
  return 2.0 * double(*memory_clock_khz) * 1e3 * double(*memory_bus_bits) / 8.0 / 1e9;
}

const ProbeRun* BackendProbes::run(const std::string& probe) const {
  return find_row(runs, probe, &ProbeRun::name);
}

const ProbeDevice* BackendProbes::device(int index) const {
  return find_row(devices, index, &ProbeDevice::index);
}

std::string BackendProbes::title() const {
  if (backend == "cuda") return "CUDA";
  if (backend == "hip") return "HIP";
  return backend;
}

bool BackendProbes::runtime_too_new() const {
  return count_error &&
         (count_error->name == "cudaErrorInsufficientDriver" ||
          count_error->name == "hipErrorInsufficientDriver") &&
         driver_version.value_or(0) > 0 && runtime_version.value_or(0) > driver_version.value_or(0);
}

std::string runtime_version_text(const std::optional<long long>& v) {
  if (!v || *v <= 0) return "none";
  const bool hip = *v >= 10000000; // HIP: major * 10^7 + minor * 10^5 + patch
  long long major = hip ? *v / 10000000 : *v / 1000;
  long long minor = hip ? (*v / 100000) % 100 : (*v % 1000) / 10;
  return std::string(hip ? "HIP " : "CUDA ") + std::to_string(major) + "." + std::to_string(minor);
}

const BackendProbes* ProbeFacts::backend(const std::string& name) const {
  return find_row(backends, name, &BackendProbes::backend);
}

} // namespace gpudoctor
