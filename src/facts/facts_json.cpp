#include "facts/facts_json.hpp"

#include "facts/config_facts_json.hpp"
#include "facts/health_facts_json.hpp"
#include "facts/inventory_json.hpp"
#include "facts/json_fields.hpp"
#include "facts/probe_facts_json.hpp"

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using namespace facts_json;

std::string hex4(unsigned v) {
  return fmt::format("0x{:04x}", v);
}

Json io_links_json(const KfdNode& n) {
  if (!n.io_links_read) return nullptr;
  Json links = Json::array();
  for (const auto& l : n.io_links)
    links.push_back({{"type", opt(l.type)},
                     {"node_from", opt(l.node_from)},
                     {"node_to", opt(l.node_to)},
                     {"weight", opt(l.weight)},
                     {"max_bandwidth", opt(l.max_bandwidth)},
                     {"source", l.source}});
  return links;
}

Json kfd_json(const KfdNode& n) {
  return {{"node_id", n.node_id},
          {"gfx_target_version", opt(n.gfx_target_version)},
          {"vendor_id", opt(n.vendor_id)},
          {"device_id", opt(n.device_id)},
          {"location_id", opt(n.location_id)},
          {"domain", opt(n.domain)},
          {"drm_render_minor", opt(n.drm_render_minor)},
          {"simd_count", opt(n.simd_count)},
          {"local_mem_size", opt(n.local_mem_size)},
          {"source", n.source},
          {"io_links", io_links_json(n)}};
}

Json gpu_json(const Gpu& g) {
  Json j = {{"index", g.index},
            {"bdf", g.bdf},
            {"vendor", vendor_name(g.vendor)},
            {"vendor_id", hex4(g.vendor_id)},
            {"device_id", hex4(g.device_id)},
            {"subsystem_vendor", g.subsystem_vendor ? Json(hex4(*g.subsystem_vendor)) : Json(nullptr)},
            {"subsystem_device", g.subsystem_device ? Json(hex4(*g.subsystem_device)) : Json(nullptr)},
            {"revision", g.revision ? Json(hex4(*g.revision)) : Json(nullptr)},
            {"class", hex4(g.pci_class)},
            {"name", g.display_name()},
            {"pci_ids_name", opt(g.pci_ids_name)},
            {"arch", g.arch()},
            {"driver", fact(g.driver)},
            {"numa_node", opt(g.numa_node)},
            {"link",
             {{"speed_current", opt(g.link_speed_current)},
              {"speed_max", opt(g.link_speed_max)},
              {"width_current", opt(g.link_width_current)},
              {"width_max", opt(g.link_width_max)}}},
            {"render_node", opt(g.render_node)},
            {"vram_bytes_sysfs", opt(g.vram_bytes_sysfs)},
            {"vram_bar_bytes", opt(g.vram_bar_bytes)},
            {"vram_bar_offered_bytes", opt(g.vram_bar_offered)},
            {"source", g.source}};
  if (g.virtual_functions > 0) j["virtual_functions"] = g.virtual_functions; // absent on most machines
  if (g.model)
    j["model"] = {{"name", g.model->name},
                  {"arch", g.model->arch},
                  {"family", g.model->family},
                  {"gfx_target_version", opt(g.model->gfx_target_version)},
                  {"vram_bytes", opt(g.model->vram_bytes)},
                  {"source", g.model->source},
                  {"uncertain", g.model->uncertain}};
  else
    j["model"] = nullptr;
  j["kfd"] = g.kfd ? kfd_json(*g.kfd) : Json(nullptr);
  return j;
}

Json os_json(const OsFacts& os) {
  return {{"id", fact(os.id)},
          {"version_id", fact(os.version_id)},
          {"codename", fact(os.codename)},
          {"pretty_name", fact(os.pretty_name)},
          {"id_like", os.id_like},
          {"kernel_release", fact(os.kernel_release)},
          {"kernel_cmdline", fact(os.kernel_cmdline)},
          {"architecture", fact(os.architecture)},
          {"in_container", os.in_container},
          {"container_evidence", os.container_evidence},
          {"wsl", os.wsl}};
}

Json drivers_json(const Facts& f) {
  Json nvidia = {{"kernel_module_version", fact(f.nvidia.kernel_module_version)},
                 {"open_kernel_module", f.nvidia.open_kernel_module},
                 {"smi_driver_version", fact(f.nvidia.smi_driver_version)},
                 {"smi_cuda_version", fact(f.nvidia.smi_cuda_version)},
                 {"nvml_library_version", fact(f.nvidia.nvml_library_version)},
                 {"smi_mismatch", f.nvidia.smi_mismatch},
                 {"smi_no_driver", f.nvidia.smi_no_driver},
                 {"userspace_package_versions", f.nvidia.libnvidia_ml_versions}};
  Json smi_gpus = Json::array();
  for (const auto& g : f.nvidia.smi_gpus)
    smi_gpus.push_back({{"name", g.name},
                        {"bus_id", g.bus_id},
                        {"uuid", g.uuid},
                        {"memory_total_mib", opt(g.memory_total_mib)},
                        {"performance_state", g.performance_state},
                        {"gpu_utilization", opt(g.gpu_utilization)},
                        {"temperature_celsius", opt(g.temperature_celsius)},
                        {"power_draw_watts", opt(g.power_draw_watts)},
                        {"power_limit_watts", opt(g.power_limit_watts)},
                        {"sm_clock_mhz", opt(g.sm_clock_mhz)},
                        {"memory_clock_mhz", opt(g.memory_clock_mhz)},
                        {"compute_processes", opt(g.compute_processes)},
                        {"mig_current", text_or_null(g.mig_current)},
                        {"mig_pending", text_or_null(g.mig_pending)},
                        {"mig_devices", opt(g.mig_devices)},
                        {"bar1_total_mib", opt(g.bar1_total_mib)}});
  nvidia["smi_gpus"] = smi_gpus;
  Json nvlink = Json::array();
  for (const auto& g : f.nvidia.nvlink) {
    Json links = Json::array();
    for (const auto& l : g.links)
      links.push_back({{"link", l.link},
                       {"active", l.active},
                       {"gbps", opt(l.gbps)},
                       {"replay_errors", opt(l.replay_errors)},
                       {"recovery_errors", opt(l.recovery_errors)},
                       {"crc_errors", opt(l.crc_errors)}});
    nvlink.push_back({{"index", g.index}, {"uuid", g.uuid}, {"links", links}});
  }
  nvidia["nvlink"] = f.nvidia.nvlink_read ? nvlink : Json(nullptr);
  nvidia["nvlink_errors_read"] = f.nvidia.nvlink_errors_read;
  Json nodes = Json::array();
  for (const auto& n : f.amd.kfd_nodes)
    nodes.push_back(kfd_json(n));
  Json agents = Json::array();
  for (const auto& a : f.amd.rocminfo_agents)
    agents.push_back({{"name", a.name},
                      {"marketing_name", a.marketing_name},
                      {"device_type", a.device_type},
                      {"node", opt(a.node)}});
  Json amd = {{"kfd_device", f.amd.kfd_device},
              {"kfd_topology", f.amd.kfd_topology},
              {"kfd_nodes", nodes},
              {"amdgpu_module_version", fact(f.amd.amdgpu_module_version)},
              {"amdgpu_params", f.amd.amdgpu_params},
              {"rocminfo_ok", f.amd.rocminfo_ok},
              {"rocminfo_agents", agents},
              {"rocminfo_failure", fact(f.amd.rocminfo_failure)},
              {"rocminfo_runtime_version", fact(f.amd.rocminfo_runtime_version)}};
  Json modules = Json::object();
  for (const char* name : {"nvidia", "nvidia_uvm", "nvidia_drm", "nouveau", "amdgpu"})
    if (auto it = f.modules.loaded.find(name); it != f.modules.loaded.end()) modules[name] = it->second;
  return {{"modules_readable", f.modules.readable},
          {"gpu_modules_loaded", modules},
          {"nvidia", nvidia},
          {"amd", amd}};
}

Json toolkits_json(const ToolkitFacts& t) {
  Json cuda = Json::array(), rocm = Json::array();
  for (const auto& c : t.cuda)
    cuda.push_back({{"path", c.path}, {"version", fact(c.version)}});
  for (const auto& r : t.rocm)
    rocm.push_back({{"path", r.path},
                    {"version", fact(r.version)},
                    {"distribution_package", r.distribution_package},
                    {"required_by", r.required_by}});
  return {{"cuda", cuda},
          {"cuda_default_link", fact(t.cuda_default_link)},
          {"nvcc_path", fact(t.nvcc_path)},
          {"nvcc_version", fact(t.nvcc_version)},
          {"rocm", rocm},
          {"rocm_default_link", fact(t.rocm_default_link)},
          {"hipcc_path", fact(t.hipcc_path)},
          {"cudnn_version", fact(t.cudnn_version)},
          {"nccl_version", fact(t.nccl_version)},
          {"rccl_version", fact(t.rccl_version)}};
}

Json node_json(const DeviceNode& n) {
  Json j = {{"path", n.path}, {"exists", n.stat.has_value()}, {"accessible", n.accessible}};
  if (n.stat) {
    j["mode"] = fmt::format("{:04o}", n.stat->mode);
    j["group"] = n.stat->group;
  }
  if (!n.why_not.empty()) j["why_not"] = n.why_not;
  return j;
}

Json permissions_json(const PermissionFacts& p) {
  Json render = Json::array(), nvidia = Json::array();
  for (const auto& n : p.render_nodes)
    render.push_back(node_json(n));
  for (const auto& n : p.nvidia_nodes)
    nvidia.push_back(node_json(n));
  return {{"user", p.identity.user},     {"uid", p.identity.uid},
          {"groups", p.identity.groups}, {"kfd", p.kfd ? node_json(*p.kfd) : Json(nullptr)},
          {"render_nodes", render},      {"nvidia_nodes", nvidia}};
}

Json python_json(const PythonFacts& py) {
  Json envs = Json::array();
  for (const auto& e : py.envs) {
    Json torch = nullptr;
    if (e.torch)
      torch = {{"version", e.torch->version}, {"cuda", opt(e.torch->cuda)},
               {"hip", opt(e.torch->hip)},    {"location", e.torch->location},
               {"source", e.torch->source},   {"installer", e.torch->installer}};
    envs.push_back({{"role", e.role},
                    {"executable", e.executable},
                    {"via", text_or_null(e.via)},
                    {"version", fact(e.version)},
                    {"error", text_or_null(e.error)},
                    {"torch", torch}});
    Json dists = Json::array();
    for (const auto& d : e.distributions)
      dists.push_back(d.name + "==" + d.version);
    envs.back()["distributions"] = dists;
  }
  return {{"interpreters", envs}};
}

Json tools_json(const std::vector<ToolRun>& tools) {
  Json out = Json::array();
  for (const auto& t : tools)
    out.push_back({{"key", t.key},
                   {"program", t.program},
                   {"found", t.found},
                   {"exit", opt(t.exit_code)},
                   {"timed_out", t.timed_out},
                   {"unkillable", t.unkillable},
                   {"duration_ms", t.duration_ms},
                   {"timeout_ms", t.timeout_ms},
                   {"failure", text_or_null(t.failure)}});
  return out;
}

Json nccl_conf_json(const EnvFacts& env) {
  Json files = Json::array();
  for (const auto& file : env.nccl_conf) {
    Json settings = Json::array();
    for (const auto& x : file.settings)
      settings.push_back({{"name", x.name}, {"value", x.value}, {"line", x.line}});
    files.push_back({{"path", file.path}, {"role", file.role}, {"settings", settings}});
  }
  return files;
}

} // namespace

Json facts_to_json(const Facts& f) {
  Json gpus = Json::array();
  for (const auto& g : f.gpus)
    gpus.push_back(gpu_json(g));
  Json packages = Json::object();
  packages["manager"] = f.packages.manager;
  packages["readable"] = f.packages.readable;
  if (!f.packages.over_limit.empty()) packages["over_limit"] = f.packages.over_limit;
  Json env = Json::object();
  for (const auto& [name, value] : f.env.gpu_vars)
    env[name] = value;
  Json facts = {
      {"os", os_json(f.os)},
      {"gpus", gpus},
      {"drivers", drivers_json(f)},
      {"toolkits", toolkits_json(f.toolkits)},
      {"environment", {{"gpu_variables", env}, {"nccl_conf_files", nccl_conf_json(f.env)}}},
      {"network", {{"interfaces", opt(f.network.interfaces)}, {"ib_devices", f.network.ib_devices}}},
      {"permissions", permissions_json(f.permissions)},
      {"python", python_json(f.python)},
      {"repositories", repos_to_json(f.repos)},
      {"boot", boot_to_json(f.boot)},
      {"stack_paths", stack_paths_to_json(f.stack_paths)},
      {"containers", containers_to_json(f.containers)},
      {"packages", packages},
      {"tools", tools_json(f.tools)},
      {"probes", probe_facts_to_json(f.probes)},
      {"health", health_to_json(f)},
      {"history", history_to_json(f.history)},
      {"collector_errors", f.collector_errors}};
  // Absent, not empty, when not taken: `check` does not take it, and "nothing installed" is a list of its
  // own.
  if (f.inventory) facts["inventory"] = inventory_to_json(*f.inventory);
  // Absent when gpudoctor ran every program it meant to (always, but as root).
  if (!f.untrusted.empty()) {
    Json list = Json::array();
    for (const auto& u : f.untrusted) {
      Json entry = {{"key", u.key}, {"path", u.program.path}, {"why", u.program.why}};
      if (!u.program.ran_as.empty()) entry["ran_as"] = u.program.ran_as;
      if (!u.program.instead.empty()) entry["instead"] = u.program.instead;
      list.push_back(std::move(entry));
    }
    facts["untrusted"] = std::move(list);
  }
  return facts;
}

} // namespace gpudoctor
