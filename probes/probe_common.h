// What every probe shares: its JSON lines on stdout (docs/probes.md), runtime errors reported as lines, and
// timing statistics. A probe reports what it measured; it never decides pass or fail (gpudoctor's checks do).
#pragma once

#include "gpu_compat.h"

#include <cstddef>
#include <string>
#include <vector>

namespace probe {

constexpr int k_format = 1;

// One JSON object on one line, built field by field and printed (and flushed) by emit().
class Line {
public:
  Line(const char* probe, const char* event);
  Line& str(const char* key, const std::string& value);
  Line& num(const char* key, long long value);
  Line& real(const char* key, double value);
  Line& flag(const char* key, bool value);
  Line& strs(const char* key, const std::vector<std::string>& values);
  void emit();

private:
  void key(const char* k);
  std::string m_text;
};

// Reports a failed runtime call as an "error" line (device -1: not about one device). True on success.
bool ok(const char* probe, gpuError_t e, const char* call, int device = -1);
// The error fields of a runtime error, for lines that report an outcome rather than a failed call.
Line& with_error(Line& line, gpuError_t e);

// The "start" line: backend, versions, targets built. Returns the device count, or -1 when the runtime cannot
// count devices (the error line says why; "no device" is such an error in both runtimes).
int start(const char* probe);
// The "end" line, with the probe's wall time; returns the process exit status: 0, the probe ran to its end
// (whatever it found). A probe without an end line was killed or crashed.
int finish(const char* probe);

// Best and median of a set of timings in milliseconds, as GB/s (1e9 bytes per second) for `bytes` each.
struct Rate {
  double best_gbps = 0;
  double median_gbps = 0;
  int iterations = 0;
};
Rate rate_of(std::vector<float> ms, double bytes);

// Events on a stream, timing one interval at a time.
class Timer {
public:
  explicit Timer(gpuStream_t stream);
  ~Timer();
  gpuError_t begin();
  // Milliseconds since begin() into `ms`, once the stream reached the end event.
  gpuError_t end(float& ms);

private:
  gpuStream_t m_stream;
  gpuEvent_t m_start = nullptr, m_stop = nullptr;
  gpuError_t m_created = gpuSuccess;
};

} // namespace probe
