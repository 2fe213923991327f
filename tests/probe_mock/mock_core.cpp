#include "mock_core.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace mock {

namespace {

constexpr std::size_t k_backed_limit = std::size_t(256) << 20;

struct Device {
  Props props{};
  std::string bus_id;
};

struct Allocation {
  std::size_t bytes = 0;
  int device = 0;
  bool backed = false;
};

struct State {
  std::map<std::string, std::string> cfg;
  std::vector<Device> devices;
  int current = 0;
  std::map<void*, Allocation> allocations;
  std::map<int, std::size_t> allocated; // per device
  std::uintptr_t next_fake = 0x10000000000ull;
  double now_ms = 0;
  long ops = 0;
  int last = ok;
  bool triggered = false;
  std::string probe;

  double number(const std::string& key, double fallback) const {
    auto it = cfg.find(key);
    return it == cfg.end() ? fallback : std::strtod(it->second.c_str(), nullptr);
  }
  std::size_t bytes(const std::string& key, std::size_t fallback) const {
    auto it = cfg.find(key);
    return it == cfg.end() ? fallback
                           : static_cast<std::size_t>(std::strtoull(it->second.c_str(), nullptr, 10));
  }
  std::string text(const std::string& key) const {
    auto it = cfg.find(key);
    return it == cfg.end() ? std::string() : it->second;
  }
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep))
    out.push_back(part);
  return out;
}

State load() {
  State st;
  if (std::ifstream cmdline{"/proc/self/cmdline"}) {
    std::string argv0, argv1;
    std::getline(cmdline, argv0, '\0');
    std::getline(cmdline, argv1, '\0');
    st.probe = argv1;
  }
  const char* path = std::getenv("GPUDOCTOR_PROBE_MOCK");
  std::ifstream in(path ? path : "");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key != "device") {
      st.cfg[key] = value;
      continue;
    }
    // name|arch|major|minor|bus id|total bytes|multiprocessors|l2 bytes|bus bits|clock kHz
    auto f = split(value, '|');
    f.resize(10);
    Device d;
    std::snprintf(d.props.name, sizeof d.props.name, "%s", f[0].c_str());
    std::snprintf(d.props.arch, sizeof d.props.arch, "%s", f[1].c_str());
    d.props.major = std::atoi(f[2].c_str());
    d.props.minor = std::atoi(f[3].c_str());
    d.bus_id = f[4];
    d.props.total = static_cast<std::size_t>(std::strtoull(f[5].c_str(), nullptr, 10));
    d.props.multiprocessors = std::atoi(f[6].c_str());
    d.props.l2_bytes = std::atoi(f[7].c_str());
    d.props.bus_bits = std::atoi(f[8].c_str());
    d.props.clock_khz = std::atoi(f[9].c_str());
    for (int i = 0; i < 16; ++i)
      d.props.uuid[i] = static_cast<unsigned char>(0x10 * st.devices.size() + i * 7);
    st.devices.push_back(d);
  }
  return st;
}

State& state() {
  static State st = load();
  return st;
}

// The scenario's hang or crash, at the probe's first device operation.
void trigger() {
  State& st = state();
  if (st.triggered) return;
  st.triggered = true;
  if (st.text("hang") == st.probe)
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  if (st.text("crash") == st.probe) std::raise(SIGSEGV);
}

int fail(int code) {
  state().last = code;
  return code;
}

// Advances the clock by `bytes` at `gbps`, with jitter of up to 1.8 % so best and median differ.
void advance(double bytes, double gbps) {
  State& st = state();
  double jitter = 1.0 + 0.003 * double(st.ops++ % 7);
  st.now_ms += gbps > 0 ? bytes / (gbps * 1e9) * 1e3 * jitter : 0.001;
}

Allocation* find(const void* p) {
  auto& all = state().allocations;
  auto it = all.find(const_cast<void*>(p));
  return it == all.end() ? nullptr : &it->second;
}

bool valid_device(int d) {
  return d >= 0 && d < static_cast<int>(state().devices.size());
}

} // namespace

const char* targets() {
  static const std::string t = [] {
    std::string s = state().text("targets");
    if (!s.empty()) return s;
#ifdef __HIP_PLATFORM_AMD__
    return std::string("gfx900 gfx906 gfx908 gfx90a gfx940 gfx1010 gfx1030");
#else
    return std::string(
        "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121 compute_121");
#endif
  }();
  return t.c_str();
}

const char* error_name(int code, bool hip) {
  switch (code) {
  case ok:
    return hip ? "hipSuccess" : "cudaSuccess";
  case out_of_memory:
    return hip ? "hipErrorOutOfMemory" : "cudaErrorMemoryAllocation";
  case insufficient_driver:
    return hip ? "hipErrorInsufficientDriver" : "cudaErrorInsufficientDriver";
  case invalid_device_function:
    return hip ? "hipErrorInvalidDeviceFunction" : "cudaErrorInvalidDeviceFunction";
  case no_device:
    return hip ? "hipErrorNoDevice" : "cudaErrorNoDevice";
  case invalid_device:
    return hip ? "hipErrorInvalidDevice" : "cudaErrorInvalidDevice";
  case no_kernel_image:
    return hip ? "hipErrorNoBinaryForGpu" : "cudaErrorNoKernelImageForDevice";
  case peer_unsupported:
    return hip ? "hipErrorPeerAccessUnsupported" : "cudaErrorPeerAccessUnsupported";
  case illegal_address:
    return hip ? "hipErrorIllegalAddress" : "cudaErrorIllegalAddress";
  case peer_already_enabled:
    return hip ? "hipErrorPeerAccessAlreadyEnabled" : "cudaErrorPeerAccessAlreadyEnabled";
  case driver_mismatch:
    return hip ? "hipErrorUnknown" : "cudaErrorSystemDriverMismatch";
  default:
    return hip ? "hipErrorUnknown" : "cudaErrorUnknown";
  }
}

const char* error_string(int code, bool hip) {
  switch (code) {
  case ok:
    return "no error";
  case out_of_memory:
    return "out of memory";
  case insufficient_driver:
    return hip ? "driver version is insufficient for runtime version"
               : "CUDA driver version is insufficient for CUDA runtime version";
  case invalid_device_function:
    return "invalid device function";
  case no_device:
    return hip ? "no ROCm-capable device is detected" : "no CUDA-capable device is detected";
  case invalid_device:
    return "invalid device ordinal";
  case no_kernel_image:
    return "no kernel image is available for execution on the device";
  case peer_unsupported:
    return "peer access is not supported between these two devices";
  case illegal_address:
    return "an illegal memory access was encountered";
  case peer_already_enabled:
    return "peer access is already enabled";
  case driver_mismatch:
    return "system has unsupported display driver / cuda driver combination";
  default:
    return "unknown error";
  }
}

int last_error() {
  int e = state().last;
  state().last = ok;
  return e;
}

int driver_version(int* v) {
  *v = static_cast<int>(state().number("driver_version", 0));
  return ok;
}

int runtime_version(int* v) {
  *v = static_cast<int>(state().number("runtime_version", 0));
  return ok;
}

int device_count(int* n) {
  State& st = state();
  if (st.probe == "devices" && st.text("hang") == "devices") trigger();
  if (int e = static_cast<int>(st.number("count_error", 0))) return fail(e);
  if (st.devices.empty()) return fail(no_device);
  *n = static_cast<int>(st.devices.size());
  return ok;
}

int properties(Props* p, int device) {
  trigger();
  if (!valid_device(device)) return fail(invalid_device);
  *p = state().devices[device].props;
  return ok;
}

int attribute(int* v, int which, int device) {
  if (!valid_device(device)) return fail(invalid_device);
  const Props& p = state().devices[device].props;
  *v = which == 0 ? p.clock_khz : 2048;
  return ok;
}

int pci_bus_id(char* out, int len, int device) {
  if (!valid_device(device)) return fail(invalid_device);
  std::snprintf(out, static_cast<std::size_t>(len), "%s", state().devices[device].bus_id.c_str());
  return ok;
}

int uuid(unsigned char out[16], int device) {
  if (!valid_device(device)) return fail(invalid_device);
  std::memcpy(out, state().devices[device].props.uuid, 16);
  return ok;
}

int set_device(int device) {
  trigger();
  if (!valid_device(device)) return fail(invalid_device);
  state().current = device;
  return ok;
}

int synchronize() {
  return ok;
}

int can_access_peer(int* can, int a, int b) {
  if (!valid_device(a) || !valid_device(b)) return fail(invalid_device);
  *can = state().number("peer_access", 1) != 0 && a != b;
  return ok;
}

int enable_peer(int peer) {
  if (!valid_device(peer)) return fail(invalid_device);
  return state().number("peer_access", 1) != 0 ? ok : fail(peer_unsupported);
}

int malloc_device(void** p, std::size_t bytes) {
  State& st = state();
  const Props& props = st.devices[st.current].props;
  std::size_t free_bytes = st.bytes("free_bytes", props.total - (std::size_t(1) << 30));
  std::size_t max_single = st.bytes("max_single_bytes", free_bytes);
  std::size_t max_total = st.bytes("max_total_bytes", free_bytes);
  std::size_t& used = st.allocated[st.current];
  if (bytes > max_single || used + bytes > max_total) return fail(out_of_memory);
  Allocation a{bytes, st.current, bytes <= k_backed_limit};
  void* ptr = nullptr;
  if (a.backed)
    ptr = std::calloc(1, bytes);
  else {
    ptr = reinterpret_cast<void*>(st.next_fake);
    st.next_fake += (bytes + 0xfffff) & ~std::size_t(0xfffff);
  }
  used += bytes;
  st.allocations[ptr] = a;
  *p = ptr;
  advance(0, 0);
  return ok;
}

int free_device(void* p) {
  State& st = state();
  Allocation* a = find(p);
  if (!a) return ok;
  st.allocated[a->device] -= a->bytes;
  if (a->backed) std::free(p);
  st.allocations.erase(p);
  return ok;
}

int malloc_host(void** p, std::size_t bytes) {
  *p = std::calloc(1, bytes);
  return *p ? ok : fail(out_of_memory);
}

int free_host(void* p) {
  std::free(p);
  return ok;
}

int memory_info(std::size_t* free_bytes, std::size_t* total) {
  State& st = state();
  const Props& props = st.devices[st.current].props;
  *total = props.total;
  *free_bytes = st.bytes("free_bytes", props.total - (std::size_t(1) << 30)) - st.allocated[st.current];
  return ok;
}

int copy(void* dst, const void* src, std::size_t bytes, int kind) {
  State& st = state();
  Allocation* d = find(dst);
  const Allocation* s = find(src);
  bool real = (!d || d->backed) && (!s || s->backed);
  if (real) std::memcpy(dst, src, bytes);
  if (kind == host_to_device)
    advance(double(bytes), st.number("h2d_gbps", 25));
  else if (kind == device_to_host)
    advance(double(bytes), st.number("d2h_gbps", 25));
  else
    advance(2.0 * double(bytes), st.number("memcpy_gbps", st.number("memory_gbps", 1000) * 1.01));
  return ok;
}

int copy_peer(void* dst, int, const void* src, int, std::size_t bytes) {
  Allocation* d = find(dst);
  const Allocation* s = find(src);
  if (d && s && d->backed && s->backed) std::memcpy(dst, src, bytes);
  advance(double(bytes), state().number("p2p_gbps", 20));
  return ok;
}

int fill_bytes(void* p, int value, std::size_t bytes) {
  Allocation* a = find(p);
  if (!a || a->backed) std::memset(p, value, bytes);
  advance(0, 0);
  return ok;
}

int stream_create(void** s) {
  static int streams = 0;
  *s = &++streams;
  return ok;
}

int stream_destroy(void*) {
  return ok;
}

int event_create(void** e) {
  *e = new double(0);
  return ok;
}

int event_destroy(void* e) {
  delete static_cast<double*>(e);
  return ok;
}

int event_record(void* e) {
  *static_cast<double*>(e) = state().now_ms;
  return ok;
}

int event_synchronize(void*) {
  return ok;
}

int event_elapsed(float* ms, void* start, void* stop) {
  *ms = static_cast<float>(*static_cast<double*>(stop) - *static_cast<double*>(start));
  return ok;
}

double setting(const char* key, double fallback) {
  return state().number(key, fallback);
}

int kernel_image() {
  return static_cast<int>(state().number("kernel_image_error", 0));
}

int kernel_stream(const char* test, std::size_t n) {
  State& st = state();
  if (int e = kernel_image()) return fail(e);
  double memory = st.number("memory_gbps", 1000);
  bool triad = std::strcmp(test, "triad") == 0;
  advance(double(n) * 16 * (triad ? 3 : 2), triad ? st.number("triad_gbps", memory * 0.98) : memory);
  return ok;
}

int kernel_verify(unsigned long long* bad, bool) {
  if (int e = kernel_image()) return fail(e);
  *bad = static_cast<unsigned long long>(state().number("verify_wrong", 0));
  return ok;
}

} // namespace mock
