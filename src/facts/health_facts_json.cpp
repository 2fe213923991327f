#include "facts/health_facts_json.hpp"

#include "facts/json_fields.hpp"

namespace gpudoctor {

namespace {

using namespace facts_json;

Json kernel_log_json(const KernelLogFacts& log) {
  Json events = Json::array();
  for (const auto& e : log.events)
    events.push_back({{"kind", kernel_event_name(e.kind)},
                      {"code", opt(e.code)},
                      {"pci", text_or_null(e.pci)},
                      {"reporter", text_or_null(e.reporter)},
                      {"detail", e.detail},
                      {"process", text_or_null(e.process)},
                      {"boot", e.boot == 0 ? "this" : "previous"},
                      {"count", e.count},
                      {"first_time", e.first_time},
                      {"last_time", e.last_time},
                      {"boot_relative", e.boot_relative}});
  return {{"read", log.read},
          {"reader", text_or_null(log.reader)},
          {"why_not", text_or_null(log.why_not)},
          {"previous_boot_read", log.previous_read},
          {"truncated", log.truncated},
          {"messages", log.records},
          {"events", events},
          {"events_dropped", log.events_dropped}};
}

Json nvidia_health_json(const NvidiaGpuHealth& h) {
  return {{"ecc_mode", opt(h.ecc_mode)},
          {"volatile_uncorrectable", opt(h.volatile_uncorrectable)},
          {"aggregate_uncorrectable", opt(h.aggregate_uncorrectable)},
          {"volatile_correctable", opt(h.volatile_correctable)},
          {"aggregate_correctable", opt(h.aggregate_correctable)},
          {"retired_pages_sbe", opt(h.retired_sbe)},
          {"retired_pages_dbe", opt(h.retired_dbe)},
          {"retirement_pending", opt(h.retirement_pending)},
          {"remapped_rows_correctable", opt(h.remapped_correctable)},
          {"remapped_rows_uncorrectable", opt(h.remapped_uncorrectable)},
          {"remap_pending", opt(h.remap_pending)},
          {"remap_failure", opt(h.remap_failure)},
          {"reset_required", opt(h.reset_required)},
          {"recovery_action", opt(h.recovery_action)},
          {"clocks_held_by", h.clocks_held_by},
          {"fabric_state", opt(h.fabric_state)},
          {"fabric_status", opt(h.fabric_status)}};
}

Json fabric_json(const FabricFacts& f) {
  Json switches = Json::array();
  for (const auto& s : f.nvswitches)
    switches.push_back(
        {{"bdf", s.bdf}, {"name", s.name}, {"generation", s.generation}, {"driver", fact(s.driver)}});
  return {{"nvswitches", switches},
          {"manager_package", fact(f.manager_package)},
          {"manager_version", fact(f.manager_version)},
          {"subnet_manager_version", fact(f.subnet_manager_version)},
          {"service_checked", f.service_checked},
          {"service_state", fact(f.service_state)}};
}

// The counts a later run compares (collect/history_previous.cpp reads them back).
Json nvlink_errors_json(const NvlinkGpu& g) {
  Json links = Json::array();
  for (const auto& l : g.links)
    if (l.replay_errors || l.recovery_errors || l.crc_errors)
      links.push_back({{"link", l.link},
                       {"replay", opt(l.replay_errors)},
                       {"recovery", opt(l.recovery_errors)},
                       {"crc", opt(l.crc_errors)}});
  return links;
}

} // namespace

Json history_to_json(const HistoryFacts& h) {
  Json previous = nullptr;
  if (h.previous)
    previous = {{"report", h.previous->report},
                {"time", h.previous->time},
                {"tool_version", h.previous->tool_version},
                {"same_boot", h.same_boot()}};
  return {{"boot_id", fact(h.boot_id)},
          {"previous", previous},
          {"source", text_or_null(h.source)},
          {"why_not", text_or_null(h.why_not)}};
}

Json health_to_json(const Facts& f) {
  Json gpus = Json::array();
  for (const auto& g : f.gpus) {
    Json ras = Json::array();
    for (const auto& r : g.ras)
      ras.push_back({{"block", r.block}, {"ue", r.ue}, {"ce", r.ce}, {"source", r.source}});
    Json sensors = nullptr;
    Json temperatures = Json::array();
    for (const auto& t : g.sensors.temperatures)
      temperatures.push_back({{"label", t.label},
                              {"celsius", t.celsius},
                              {"crit", opt(t.crit)},
                              {"emergency", opt(t.emergency)}});
    if (!g.sensors.source.empty())
      sensors = {{"temperature_celsius", opt(g.sensors.temperature_celsius)},
                 {"temperatures", temperatures},
                 {"power_draw_watts", opt(g.sensors.power_draw_watts)},
                 {"power_limit_watts", opt(g.sensors.power_limit_watts)},
                 {"busy_percent", opt(g.sensors.busy_percent)},
                 {"source", g.sensors.source}};
    Json bad_pages = nullptr;
    if (g.bad_pages)
      bad_pages = {{"reserved", g.bad_pages->reserved},
                   {"pending", g.bad_pages->pending},
                   {"failed", g.bad_pages->failed},
                   {"source", g.bad_pages->source}};
    gpus.push_back({{"bdf", g.bdf},
                    {"upstream_ports", g.upstream_ports},
                    {"amdgpu_ras", ras},
                    {"amdgpu_bad_pages", bad_pages},
                    {"sensors", sensors}});
  }
  Json nvidia = Json::array();
  for (const auto& g : f.nvidia.smi_gpus)
    nvidia.push_back({{"bus_id", g.bus_id}, {"health", nvidia_health_json(g.health)}});
  if (f.nvidia.nvlink_errors_read)
    for (const auto& n : f.nvidia.nvlink)
      if (const NvidiaSmiGpu* smi = f.smi_of(n))
        nvidia[static_cast<std::size_t>(smi - f.nvidia.smi_gpus.data())]["nvlink_errors"] =
            nvlink_errors_json(n);
  return {{"kernel_log", kernel_log_json(f.kernel_log)},
          {"gpus", gpus},
          {"nvidia_gpus", nvidia},
          {"nvidia_module",
           {{"filename", fact(f.nvidia.modinfo_filename)},
            {"version", fact(f.nvidia.modinfo_version)},
            {"license", fact(f.nvidia.modinfo_license)},
            {"signer", fact(f.nvidia.modinfo_signer)}}},
          {"fabric", fabric_json(f.fabric)},
          {"amdgpu_firmware", f.firmware.listed
                                  ? Json({{"dir", f.firmware.dir}, {"files", f.firmware.files.size()}})
                                  : Json(nullptr)}};
}

} // namespace gpudoctor
