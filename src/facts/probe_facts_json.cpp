#include "facts/probe_facts_json.hpp"

#include "facts/json_fields.hpp"

namespace gpudoctor {

namespace {

using namespace facts_json;

Json error_json(const ProbeError& e) {
  return {{"call", e.call},
          {"error", e.name},
          {"message", e.message},
          {"code", opt(e.code)},
          {"device", opt(e.device)}};
}

Json run_json(const ProbeRun& r) {
  Json errors = Json::array();
  for (const auto& e : r.errors)
    errors.push_back(error_json(e));
  return {{"probe", r.name},
          {"key", r.key},
          {"run", r.run},
          {"not_run", text_or_null(r.not_run)},
          {"untrusted", text_or_null(r.untrusted)},
          {"found", r.found},
          {"exit", opt(r.exit_code)},
          {"timed_out", r.timed_out},
          {"crashed", r.crashed()},
          {"duration_ms", r.duration_ms},
          {"timeout_ms", r.timeout_ms},
          {"errors", errors},
          {"notes", r.notes},
          {"bad_lines", r.bad_lines},
          {"stderr_tail", text_or_null(r.stderr_tail)}};
}

Json bandwidth_json(const ProbeBandwidth& b) {
  Json j = {{"device", b.device},
            {"test", b.test},
            {"bytes", b.bytes},
            {"iterations", b.iterations},
            {"best_gbps", opt(b.best_gbps)},
            {"median_gbps", opt(b.median_gbps)},
            {"verified", b.verified},
            {"mismatches", b.mismatches}};
  if (b.peer >= 0) j["peer"] = b.peer;
  return j;
}

Json backend_json(const BackendProbes& b) {
  Json runs = Json::array(), devices = Json::array(), kernels = Json::array(), memory = Json::array(),
       host = Json::array(), p2p = Json::array(), peers = Json::array(), allocs = Json::array();
  for (const auto& r : b.runs)
    runs.push_back(run_json(r));
  for (const auto& d : b.devices)
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"arch", d.arch},
                       {"pci_bus_id", text_or_null(d.pci_bus_id)},
                       {"uuid", text_or_null(d.uuid)},
                       {"memory_bytes", opt(d.memory_bytes)},
                       {"l2_bytes", opt(d.l2_bytes)},
                       {"multiprocessors", opt(d.multiprocessors)},
                       {"memory_bus_bits", opt(d.memory_bus_bits)},
                       {"memory_clock_khz", opt(d.memory_clock_khz)},
                       {"peak_gbps", opt(d.peak_gbps())},
                       {"integrated", d.integrated}});
  for (const auto& k : b.kernels)
    kernels.push_back({{"device", k.device},
                       {"ok", k.ok},
                       {"stage", text_or_null(k.stage)},
                       {"error", k.error ? error_json(*k.error) : Json(nullptr)},
                       {"mismatches", k.mismatches}});
  for (const auto& x : b.memory)
    memory.push_back(bandwidth_json(x));
  for (const auto& x : b.host)
    host.push_back(bandwidth_json(x));
  for (const auto& x : b.p2p)
    p2p.push_back(bandwidth_json(x));
  for (const auto& p : b.peers)
    peers.push_back({{"from", p.from}, {"to", p.to}, {"can_access", p.can_access}});
  for (const auto& a : b.allocs)
    allocs.push_back({{"device", a.device},
                      {"free_bytes", a.free_bytes},
                      {"total_bytes", a.total_bytes},
                      {"tried_single_bytes", a.tried_single_bytes},
                      {"largest_single_bytes", a.largest_single_bytes},
                      {"chunk_bytes", a.chunk_bytes},
                      {"chunked_bytes", a.chunked_bytes},
                      {"single_error", text_or_null(a.single_error)},
                      {"chunk_error", text_or_null(a.chunk_error)}});
  return {{"backend", b.backend},
          {"binary", text_or_null(b.binary)},
          {"how", text_or_null(b.how)},
          {"unavailable", text_or_null(b.unavailable)},
          {"driver_version", opt(b.driver_version)},
          {"runtime_version", opt(b.runtime_version)},
          {"targets", b.targets},
          {"device_count", opt(b.device_count)},
          {"count_error", b.count_error ? error_json(*b.count_error) : Json(nullptr)},
          {"runs", runs},
          {"devices", devices},
          {"kernels", kernels},
          {"memory_bandwidth", memory},
          {"host_bandwidth", host},
          {"peer_access", peers},
          {"p2p_bandwidth", p2p},
          {"alloc", allocs}};
}

Json framework_json(const FrameworkProbe& f) {
  Json devices = Json::array();
  for (const auto& d : f.devices)
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"arch", d.arch},
                       {"pci_bus_id", text_or_null(d.pci_bus_id)},
                       {"op_ok", d.op_ok},
                       {"error", text_or_null(d.error)}});
  return {{"python", f.python},
          {"run", run_json(f.run)},
          {"imported", f.imported},
          {"import_error", text_or_null(f.import_error)},
          {"version", text_or_null(f.version)},
          {"cuda", opt(f.cuda)},
          {"hip", opt(f.hip)},
          {"backend", text_or_null(f.backend)},
          {"available", opt(f.available)},
          {"device_count", opt(f.device_count)},
          {"arch_list", f.arch_list},
          {"warnings", f.warnings},
          {"init_error", text_or_null(f.init_error)},
          {"devices", devices}};
}

} // namespace

Json probe_facts_to_json(const ProbeFacts& probes) {
  if (!probes.requested) return nullptr;
  Json backends = Json::array();
  for (const auto& b : probes.backends)
    backends.push_back(backend_json(b));
  Json out = {{"backends", backends},
              {"framework", probes.framework ? framework_json(*probes.framework) : Json(nullptr)}};
  if (!probes.chosen_gpus.empty()) out["chosen_gpus"] = probes.chosen_gpus; // --gpus: what the runtimes saw
  return out;
}

} // namespace gpudoctor
