// Hand-built Facts for the check tests (test_checks_*.cpp): GPUs, machines, python environments, device
// nodes, and helpers that run one check through the runner and assert what a firing result must carry.
#pragma once

#include "checks/registry.hpp"
#include "collect/link_facts.hpp"
#include "engine/catalogue.hpp"
#include "engine/runner.hpp"
#include "facts/facts.hpp"
#include "knowledge/knowledge.hpp"
#include "system/system_view.hpp"
#include "testutil.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace gpudoctor::test {

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

inline std::string bdf_of(int bus) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0000:%02x:00.0", bus);
  return buf;
}

// An NVIDIA GPU bound to nvidia; the model comes from the knowledge tables (default: H100 SXM5).
inline Gpu make_nvidia_gpu(int index = 0, unsigned device_id = 0x2330, std::string driver = "nvidia") {
  Gpu g;
  g.index = index;
  g.bdf = bdf_of(0x18 + index);
  g.vendor = Vendor::nvidia;
  g.vendor_id = 0x10de;
  g.device_id = device_id;
  g.revision = 0xa1;
  g.pci_class = 0x030200;
  g.source = "/sys/bus/pci/devices/" + g.bdf;
  if (!driver.empty()) g.driver = {driver, g.source + "/driver"};
  g.model = kb().find_gpu(g.vendor_id, g.device_id, g.revision, std::nullopt);
  return g;
}

// An AMD GPU bound to amdgpu with its KFD node (node id index + 1: node 0 is the CPU) and render node.
// Default: Radeon RX 7900 XTX, gfx1100.
inline Gpu make_amd_gpu(int index = 0, long long gfx_target_version = 110000, unsigned device_id = 0x744c,
                        std::optional<unsigned> revision = 0xc8) {
  Gpu g;
  g.index = index;
  g.bdf = bdf_of(0x03 + index);
  g.vendor = Vendor::amd;
  g.vendor_id = 0x1002;
  g.device_id = device_id;
  g.revision = revision;
  g.pci_class = 0x030000;
  g.source = "/sys/bus/pci/devices/" + g.bdf;
  g.driver = {"amdgpu", g.source + "/driver"};
  g.model = kb().find_gpu(g.vendor_id, g.device_id, g.revision, std::nullopt);
  KfdNode node;
  node.node_id = index + 1;
  node.gfx_target_version = gfx_target_version;
  node.vendor_id = 0x1002;
  node.device_id = device_id;
  node.location_id = (0x03 + index) << 8;
  node.domain = 0;
  node.drm_render_minor = 128 + index;
  node.source = "/sys/class/kfd/kfd/topology/nodes/" + std::to_string(node.node_id) + "/properties";
  g.kfd = node;
  if (auto row = kb().find_gfx(gfx_target_version)) g.kfd_target = row->target;
  g.render_node = "/dev/dri/renderD" + std::to_string(128 + index);
  return g;
}

// A machine with `n` NVIDIA GPUs and the NVIDIA driver `driver` loaded (module and nvidia-smi agree).
inline Facts nvidia_machine(int n = 1, const std::string& driver = "550.90.07") {
  Facts f;
  for (int i = 0; i < n; ++i)
    f.gpus.push_back(make_nvidia_gpu(i));
  f.modules.readable = true;
  f.modules.source = "/proc/modules";
  if (!driver.empty()) {
    f.modules.loaded["nvidia"] = driver;
    f.nvidia.kernel_module_version = {driver, "/proc/driver/nvidia/version:1"};
    f.nvidia.smi_driver_version = {driver, "cmd nvidia-smi-xml"};
    for (int i = 0; i < n; ++i) {
      NvidiaSmiGpu smi;
      smi.name = "NVIDIA H100 80GB HBM3";
      smi.bus_id = f.gpus[static_cast<std::size_t>(i)].bdf;
      smi.uuid = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f" + std::to_string(i);
      smi.memory_total_mib = 81559;
      f.nvidia.smi_gpus.push_back(std::move(smi));
    }
  }
  return f;
}

// A machine with AMD GPUs of the given gfx_target_versions, amdgpu loaded and the KFD present.
inline Facts amd_machine(const std::vector<long long>& targets = {110000}) {
  Facts f;
  f.modules.readable = true;
  f.modules.source = "/proc/modules";
  f.modules.loaded["amdgpu"] = "";
  f.amd.kfd_device = true;
  f.amd.kfd_topology = true;
  KfdNode cpu;
  cpu.node_id = 0;
  cpu.gfx_target_version = 0;
  cpu.source = "/sys/class/kfd/kfd/topology/nodes/0/properties";
  f.amd.kfd_nodes.push_back(cpu);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    long long gfx = targets[i];
    // A board of that target, so the model (where the knowledge tables know it) matches the KFD.
    unsigned device = 0x744c;
    std::optional<unsigned> rev = 0xc8;
    if (gfx == 100300) {
      device = 0x73bf; // RX 6800 XT
      rev = 0xc1;
    } else if (gfx == 100301) {
      device = 0x73df; // RX 6700 XT
      rev = 0xc1;
    } else if (gfx == 120001) {
      device = 0x7551; // Radeon AI PRO R9700
      rev = std::nullopt;
    }
    Gpu g = make_amd_gpu(static_cast<int>(i), gfx, device, rev);
    if (device == 0x73df) g.pci_ids_name = "Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT]";
    f.amd.kfd_nodes.push_back(*g.kfd);
    f.gpus.push_back(std::move(g));
  }
  return f;
}

// The GPU variables, NCCL settings and overrides derived from it come from link_facts (run_check runs it).
inline void set_env(Facts& f, const std::string& name, const std::string& value) {
  f.env.all[name] = value;
}

inline TorchBuild make_torch(const std::string& version, std::optional<std::string> cuda = std::nullopt,
                             std::optional<std::string> hip = std::nullopt,
                             const std::string& site = "/usr/lib/python3/dist-packages") {
  TorchBuild t;
  t.version = version;
  t.cuda = std::move(cuda);
  t.hip = std::move(hip);
  t.location = site + "/torch";
  t.source = site + "/torch/version.py";
  return t;
}

inline PythonEnv make_python(const std::string& role, const std::string& executable,
                             std::optional<TorchBuild> torch = std::nullopt) {
  PythonEnv e;
  e.role = role;
  e.executable = executable;
  e.command_key = "python-syspath-" + role;
  e.version = {"3.12.3", "cmd " + e.command_key};
  e.sys_path = {"/usr/lib/python312.zip", "/usr/lib/python3.12", "/usr/lib/python3/dist-packages"};
  e.torch = std::move(torch);
  return e;
}

inline DeviceNode make_node(const std::string& path, bool accessible, unsigned mode = 0660,
                            const std::string& group = "render", unsigned gid = 109) {
  DeviceNode n;
  n.path = path;
  FileStat st;
  st.type = FileType::chr;
  st.mode = mode;
  st.uid = 0;
  st.gid = gid;
  st.group = group;
  n.stat = st;
  n.accessible = accessible;
  if (!accessible) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", mode);
    n.why_not = path + " is mode " + buf + ", group " + group + ", and user alice is not in group " + group;
  }
  return n;
}

inline DeviceNode missing_node(const std::string& path) {
  DeviceNode n;
  n.path = path;
  n.why_not = path + " does not exist";
  return n;
}

inline Identity user_identity(std::vector<std::string> groups = {"alice", "sudo"},
                              std::vector<unsigned> gids = {1000, 27}) {
  Identity id;
  id.user = "alice";
  id.uid = 1000;
  id.gid = 1000;
  id.groups = std::move(groups);
  id.gids = std::move(gids);
  id.home = "/home/alice";
  return id;
}

inline ToolRun make_tool(const std::string& key, const std::string& program) {
  ToolRun t;
  t.key = key;
  t.program = program;
  t.found = true;
  t.exit_code = 0;
  t.duration_ms = 120;
  t.timeout_ms = 5000;
  return t;
}

// The hand-built facts as collection leaves them: their raw values parsed by the link stage (their joins,
// a GPU's model and KFD node, the tests set by hand).
inline Facts linked(Facts facts, const Knowledge& knowledge = kb()) {
  normalise_facts(facts, knowledge);
  return facts;
}

// Runs one registered check through the runner (ids and titles filled in as in a real report), on the
// facts after the link stage.
inline std::vector<Result> run_check(const std::string& id, const Facts& raw) {
  bool registered = false;
  for (const auto& e : check_registry())
    registered = registered || id == e.id;
  REQUIRE_MESSAGE(registered, id << " is not in the registry");
  Facts facts = linked(raw);
  CheckContext ctx{facts, kb()};
  return run_checks(ctx, catalogue(), builtin_checks(), {id});
}

// The one result of a check that gives one; fails the test otherwise.
inline Result single(const std::vector<Result>& results) {
  REQUIRE(results.size() == 1);
  return results.front();
}

inline std::optional<Result> for_subject(const std::vector<Result>& results, const std::string& subject) {
  for (const auto& r : results)
    if (r.subject == subject) return r;
  return std::nullopt;
}

inline std::size_t count_status(const std::vector<Result>& results, Status s) {
  return static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [&](const Result& r) { return r.status == s; }));
}

inline std::string describe(const Result& r) {
  std::string s = r.id + " [" + status_name(r.status) + "] subject \"" + r.subject + "\": " + r.message;
  for (const auto& e : r.evidence)
    s += "\n  evidence: " + e;
  for (const auto& x : r.fixes)
    s += "\n  fix: " + x;
  return s;
}

// What every firing result must carry: the status, the subject, the key values in its message, evidence, and
// exactly `fixes`, each of them listed for this check in checks/catalogue.yaml and defined in
// fixes/catalogue.yaml.
inline void expect_fired(const Result& r, Status status, const std::string& subject,
                         const std::vector<std::string>& message_parts,
                         const std::vector<std::string>& fixes) {
  INFO(describe(r));
  CHECK(r.status == status);
  CHECK(r.subject == subject);
  for (const auto& part : message_parts)
    CHECK_MESSAGE(contains(r.message, part), "message lacks \"" << part << "\"");
  CHECK_FALSE(r.evidence.empty());
  for (const auto& e : r.evidence)
    CHECK_FALSE(e.empty());
  CHECK(r.fixes == fixes);
  const CatalogueEntry* entry = catalogue().find(r.id);
  REQUIRE(entry != nullptr);
  CHECK(r.title == entry->title);
  for (const auto& fix : r.fixes) {
    CHECK_MESSAGE(std::find(entry->fixes.begin(), entry->fixes.end(), fix) != entry->fixes.end(),
                  fix << " is not among the catalogue's fixes of " << r.id);
    CHECK_MESSAGE(catalogue().find_fix(fix) != nullptr, fix << " is not in fixes/catalogue.yaml");
  }
}

// A result that does not fire: pass or skip (or info where the check says "worth knowing").
inline void expect_quiet(const Result& r, Status status, const std::string& subject = "") {
  INFO(describe(r));
  CHECK(r.status == status);
  CHECK(r.subject == subject);
  CHECK(r.fixes.empty());
  CHECK_FALSE(r.message.empty());
}

inline FileStat chr_stat(unsigned mode, unsigned uid, unsigned gid, const std::string& group) {
  FileStat st;
  st.type = FileType::chr;
  st.mode = mode;
  st.uid = uid;
  st.gid = gid;
  st.group = group;
  return st;
}

} // namespace gpudoctor::test
