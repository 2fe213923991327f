#include "probe/probe_parse.hpp"

#include "util/json.hpp"
#include "util/text.hpp"

#include <cstdio>

namespace gpudoctor::probe {

namespace {

std::optional<double> json_number(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<int> json_small(const Json& j, const char* key) {
  auto v = json_int(j, key);
  if (!v || *v < -1000000 || *v > 1000000) return std::nullopt;
  return static_cast<int>(*v);
}

std::uint64_t json_bytes(const Json& j, const char* key) {
  auto v = json_int(j, key);
  return v && *v > 0 ? static_cast<std::uint64_t>(*v) : 0;
}

std::vector<std::string> json_strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

ProbeError error_of(const Json& j) {
  ProbeError e;
  e.call = json_string(j, "call").value_or("");
  e.name = json_string(j, "error").value_or("");
  e.message = json_string(j, "message").value_or("");
  e.code = json_int(j, "code");
  e.device = json_small(j, "device");
  return e;
}

ProbeBandwidth bandwidth_of(const Json& j, bool p2p) {
  ProbeBandwidth b;
  b.device = json_small(j, p2p ? "from" : "device").value_or(-1);
  if (p2p) b.peer = json_small(j, "to").value_or(-1);
  b.test = json_string(j, "test").value_or(p2p ? "peer" : "");
  b.bytes = json_bytes(j, "bytes");
  b.iterations = json_small(j, "iterations").value_or(0);
  b.best_gbps = json_number(j, "best_gbps");
  b.median_gbps = json_number(j, "median_gbps");
  b.verified = json_bool(j, "verified").value_or(false);
  b.mismatches = json_int(j, "mismatches").value_or(0);
  return b;
}

ProbeDevice device_of(const Json& j) {
  ProbeDevice d;
  d.index = json_small(j, "index").value_or(-1);
  d.name = json_string(j, "name").value_or("");
  d.arch = json_string(j, "arch").value_or("");
  d.pci_bus_id = normalise_bus_id(json_string(j, "pci_bus_id").value_or(""));
  d.uuid = json_string(j, "uuid").value_or("");
  if (auto v = json_int(j, "memory_bytes"); v && *v > 0) d.memory_bytes = static_cast<std::uint64_t>(*v);
  if (auto v = json_int(j, "l2_bytes"); v && *v > 0) d.l2_bytes = static_cast<std::uint64_t>(*v);
  d.multiprocessors = json_small(j, "multiprocessors");
  d.memory_bus_bits = json_small(j, "memory_bus_bits");
  d.memory_clock_khz = json_int(j, "memory_clock_khz");
  d.integrated = json_bool(j, "integrated").value_or(false);
  return d;
}

ProbeKernel kernel_of(const Json& j) {
  ProbeKernel k;
  k.device = json_small(j, "device").value_or(-1);
  k.ok = json_bool(j, "ok").value_or(false);
  k.stage = json_string(j, "stage").value_or("");
  k.mismatches = json_int(j, "mismatches").value_or(0);
  if (j.contains("error")) k.error = error_of(j);
  return k;
}

ProbeAlloc alloc_of(const Json& j) {
  ProbeAlloc a;
  a.device = json_small(j, "device").value_or(-1);
  a.free_bytes = json_bytes(j, "free_bytes");
  a.total_bytes = json_bytes(j, "total_bytes");
  a.tried_single_bytes = json_bytes(j, "tried_single_bytes");
  a.largest_single_bytes = json_bytes(j, "largest_single_bytes");
  a.chunk_bytes = json_bytes(j, "chunk_bytes");
  a.chunked_bytes = json_bytes(j, "chunked_bytes");
  a.single_error = json_string(j, "single_error").value_or("");
  a.chunk_error = json_string(j, "chunk_error").value_or("");
  return a;
}

// The JSON objects of `text` that belong to probe `name`; counts the other lines as bad.
template <class Fn> void each_line(std::string_view text, const std::string& name, int& bad, Fn&& fn) {
  for (const auto& raw : text::lines(text)) {
    std::string line = text::trim(raw);
    if (line.empty()) continue;
    auto j = parse_json(line);
    if (!j || !j->is_object() || json_string(*j, "probe").value_or("") != name || !json_string(*j, "event")) {
      ++bad;
      continue;
    }
    fn(*json_string(*j, "event"), *j);
  }
}

} // namespace

std::string normalise_bus_id(std::string_view id) {
  std::string s = text::lower(text::trim(id));
  auto parts = text::split(s, ':', true);
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() != 3) return {};
  auto dot = parts[2].find('.');
  if (dot == std::string::npos) return {};
  auto domain = text::to_int(parts[0], 16), bus = text::to_int(parts[1], 16);
  auto dev = text::to_int(parts[2].substr(0, dot), 16), fn = text::to_int(parts[2].substr(dot + 1), 16);
  if (!domain || !bus || !dev || !fn || *domain < 0 || *domain > 0xffff || *bus < 0 || *bus > 0xff ||
      *dev < 0 || *dev > 0x1f || *fn < 0 || *fn > 7)
    return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04llx:%02llx:%02llx.%llx", *domain, *bus, *dev, *fn);
  return buf;
}

void read_probe_output(std::string_view text, ProbeRun& run, BackendProbes& backend) {
  const bool devices_probe = run.name == "devices";
  each_line(text, run.name, run.bad_lines, [&](const std::string& event, const Json& j) {
    if (event == "start") {
      if (!backend.driver_version) backend.driver_version = json_int(j, "driver_version");
      if (!backend.runtime_version) backend.runtime_version = json_int(j, "runtime_version");
      if (backend.targets.empty()) backend.targets = json_string(j, "targets").value_or("");
    } else if (event == "count") {
      if (devices_probe) backend.device_count = json_small(j, "count");
    } else if (event == "error") {
      ProbeError e = error_of(j);
      if (devices_probe && text::ends_with(e.call, "GetDeviceCount")) backend.count_error = e;
      run.errors.push_back(std::move(e));
    } else if (event == "skipped") {
      run.notes.push_back("device " + std::to_string(json_small(j, "device").value_or(-1)) + ": " +
                          json_string(j, "reason").value_or("skipped"));
    } else if (event == "end") {
      run.ended = true;
    } else if (event == "device" && devices_probe) {
      backend.devices.push_back(device_of(j));
    } else if (event == "kernel") {
      backend.kernels.push_back(kernel_of(j));
    } else if (event == "bandwidth") {
      if (run.name == "memory-bandwidth")
        backend.memory.push_back(bandwidth_of(j, false));
      else if (run.name == "host-bandwidth")
        backend.host.push_back(bandwidth_of(j, false));
      else if (run.name == "p2p")
        backend.p2p.push_back(bandwidth_of(j, true));
    } else if (event == "access") {
      backend.peers.push_back({json_small(j, "from").value_or(-1), json_small(j, "to").value_or(-1),
                               json_bool(j, "can_access").value_or(false)});
    } else if (event == "alloc") {
      backend.allocs.push_back(alloc_of(j));
    }
  });
}

void read_framework_output(std::string_view text, FrameworkProbe& out) {
  each_line(text, "torch", out.run.bad_lines, [&](const std::string& event, const Json& j) {
    if (event == "import") {
      out.imported = json_bool(j, "ok").value_or(false);
      out.import_error = json_string(j, "error").value_or("");
      out.version = json_string(j, "version").value_or("");
      out.cuda = json_string(j, "cuda");
      out.hip = json_string(j, "hip");
    } else if (event == "runtime") {
      out.backend = json_string(j, "backend").value_or("");
      out.available = json_bool(j, "available");
      out.device_count = json_small(j, "device_count");
      out.arch_list = json_strings(j, "arch_list");
      out.warnings = json_strings(j, "warnings");
      out.init_error = json_string(j, "error").value_or("");
    } else if (event == "device") {
      FrameworkDevice d;
      d.index = json_small(j, "index").value_or(-1);
      d.name = json_string(j, "name").value_or("");
      d.arch = json_string(j, "arch").value_or("");
      d.pci_bus_id = normalise_bus_id(json_string(j, "pci_bus_id").value_or(""));
      d.op_ok = json_bool(j, "op_ok").value_or(false);
      d.error = json_string(j, "error").value_or("");
      out.devices.push_back(std::move(d));
    } else if (event == "end") {
      out.run.ended = true;
    }
  });
}

} // namespace gpudoctor::probe
