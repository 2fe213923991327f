#include "probe_common.h"

#include "probes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace probe {

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point g_started = Clock::now();

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

} // namespace

Line::Line(const char* probe, const char* event) {
  m_text = "{\"probe\":" + quoted(probe) + ",\"event\":" + quoted(event);
}

void Line::key(const char* k) {
  m_text += "," + quoted(k) + ":";
}

Line& Line::str(const char* k, const std::string& value) {
  key(k);
  m_text += quoted(value);
  return *this;
}

Line& Line::num(const char* k, long long value) {
  key(k);
  m_text += std::to_string(value);
  return *this;
}

Line& Line::real(const char* k, double value) {
  key(k);
  char buf[64];
  // JSON has no NaN or infinity: a rate that cannot be computed is null.
  if (value != value || value > 1e300 || value < -1e300)
    std::snprintf(buf, sizeof buf, "null");
  else
    std::snprintf(buf, sizeof buf, "%.3f", value);
  m_text += buf;
  return *this;
}

Line& Line::flag(const char* k, bool value) {
  key(k);
  m_text += value ? "true" : "false";
  return *this;
}

Line& Line::strs(const char* k, const std::vector<std::string>& values) {
  key(k);
  m_text += "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    m_text += (i ? "," : "") + quoted(values[i]);
  m_text += "]";
  return *this;
}

void Line::emit() {
  std::string out = m_text + "}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout); // a probe killed at its time limit still leaves every line it printed
}

Line& with_error(Line& line, gpuError_t e) {
  return line.num("code", static_cast<long long>(e))
      .str("error", gpuGetErrorName(e))
      .str("message", gpuGetErrorString(e));
}

bool ok(const char* probe, gpuError_t e, const char* call, int device) {
  if (e == gpuSuccess) return true;
  Line line(probe, "error");
  line.str("call", call);
  if (device >= 0) line.num("device", device);
  with_error(line, e).emit();
  return false;
}

int start(const char* probe) {
  int driver = 0, runtime = 0;
  gpuError_t driver_error = gpuDriverGetVersion(&driver);
  gpuError_t runtime_error = gpuRuntimeGetVersion(&runtime);
  Line line(probe, "start");
  line.num("format", k_format).str("backend", GPU_BACKEND).str("targets", GPUDOCTOR_PROBE_TARGETS);
  if (driver_error == gpuSuccess) line.num("driver_version", driver);
  if (runtime_error == gpuSuccess) line.num("runtime_version", runtime);
  line.emit();
  int count = 0;
  if (!ok(probe, gpuGetDeviceCount(&count), GPU_API("GetDeviceCount"))) return -1;
  Line(probe, "count").num("count", count).emit();
  return count;
}

int finish(const char* probe) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - g_started).count();
  Line(probe, "end").num("ms", static_cast<long long>(ms)).emit();
  return 0;
}

Rate rate_of(std::vector<float> ms, double bytes) {
  Rate r;
  ms.erase(std::remove_if(ms.begin(), ms.end(), [](float t) { return !(t > 0); }), ms.end());
  if (ms.empty()) return r;
  std::sort(ms.begin(), ms.end());
  r.iterations = static_cast<int>(ms.size());
  r.best_gbps = bytes / (ms.front() * 1e-3) / 1e9;
  r.median_gbps = bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
  return r;
}

Timer::Timer(gpuStream_t stream) : m_stream(stream) {
  m_created = gpuEventCreate(&m_start);
  if (m_created == gpuSuccess) m_created = gpuEventCreate(&m_stop);
}

Timer::~Timer() {
  if (m_start) (void)gpuEventDestroy(m_start);
  if (m_stop) (void)gpuEventDestroy(m_stop);
}

gpuError_t Timer::begin() {
  return m_created != gpuSuccess ? m_created : gpuEventRecord(m_start, m_stream);
}

gpuError_t Timer::end(float& ms) {
  ms = -1;
  gpuError_t e = m_created;
  if (e == gpuSuccess) e = gpuEventRecord(m_stop, m_stream);
  if (e == gpuSuccess) e = gpuEventSynchronize(m_stop);
  if (e == gpuSuccess) e = gpuEventElapsedTime(&ms, m_start, m_stop);
  return e;
}

int dispatch(int argc, char** argv, const Entry* table, int count) {
  if (argc == 2)
    for (int i = 0; i < count; ++i)
      if (std::strcmp(argv[1], table[i].name) == 0) return table[i].run();
  if (argc == 2 && std::strcmp(argv[1], "--targets") == 0) {
    std::printf("%s\n", GPUDOCTOR_PROBE_TARGETS);
    return 0;
  }
  std::fprintf(stderr, "usage: %s PROBE (one of:", argc > 0 ? argv[0] : "gpudoctor-probe");
  for (int i = 0; i < count; ++i)
    std::fprintf(stderr, " %s", table[i].name);
  std::fprintf(stderr, ") | --targets\nPrints JSON lines on stdout; see gpudoctor's docs/probes.md.\n");
  return 2;
}

} // namespace probe
