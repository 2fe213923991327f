// The check registry, checks/catalogue.yaml and fixes/catalogue.yaml agree exactly.
#include "check_fixtures.hpp"

#include <cctype>
#include <set>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

std::set<std::string> registry_ids() {
  std::set<std::string> ids;
  for (const auto& e : check_registry())
    ids.insert(e.id);
  return ids;
}

bool known_status(const std::string& s) {
  for (auto st : {Status::pass, Status::info, Status::warn, Status::error, Status::skip})
    if (s == status_name(st)) return true;
  return false;
}

// Machines that make most checks fire, to collect the fix ids the checks really emit.
std::vector<Facts> broken_machines() {
  std::vector<Facts> out;
  { // NVIDIA: stale module, toolkit too new, nouveau, CPU torch, ROCm leftovers, hidden GPUs, hung tool.
    Facts f = nvidia_machine(2, "550.90.07");
    f.gpus[1].driver = {"nouveau", "x"};
    f.nvidia.smi_driver_version = {"550.127.05", "cmd nvidia-smi-xml"};
    CudaInstall c;
    c.path = "/usr/local/cuda-13.0";
    c.version = {"13.0.88", "/usr/local/cuda-13.0/version.json"};
    f.toolkits.cuda.push_back(c);
    RocmInstall r;
    r.path = "/opt/rocm-6.2.0";
    r.version = {"6.2.0", "/opt/rocm-6.2.0/.info/version"};
    f.toolkits.rocm.push_back(r);
    set_env(f, "CUDA_VISIBLE_DEVICES", "-1");
    set_env(f, "HIP_VISIBLE_DEVICES", "0"); // env.visible-devices-foreign: env-cleanup
    set_env(f, "NCCL_P2P_DISABLE", "1");    // env.nccl-p2p-disabled: env-nccl-defaults
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+cpu")));
    f.python.envs.push_back(make_python("CONDA_PREFIX", "/opt/conda/bin/python3",
                                        make_torch("2.6.0+rocm6.2.4", std::nullopt, "6.2.41134")));
    f.permissions.identity = user_identity();
    f.permissions.nvidia_nodes = {missing_node("/dev/nvidiactl"), make_node("/dev/nvidia0", false)};
    ToolRun t = make_tool("nvidia-smi-xml", "nvidia-smi");
    t.timed_out = true;
    f.tools.push_back(t);
    out.push_back(f);
  }
  { // NVIDIA without a driver, with a toolkit.
    Facts f = nvidia_machine(1, "");
    f.gpus[0].driver = {};
    f.toolkits.nvcc_path = {"/usr/local/cuda/bin/nvcc", "PATH"};
    f.toolkits.nvcc_version = {"12.4", "cmd nvcc-version"};
    out.push_back(f);
  }
  { // AMD: no KFD node, wrong override, bad override, locked nodes, CUDA wheel, CUDA leftovers, failing tool.
    Facts f = amd_machine({120001, 110000});
    f.gpus[1].kfd.reset();
    f.gpus[1].driver = {};
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "9.4.2");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION_2", "gfx1100");
    set_env(f, "ROCR_VISIBLE_DEVICES", "");
    f.nvidia.libnvidia_ml_versions = {"550.127.05"};
    RocmInstall r;
    r.path = "/opt/rocm-6.4.1";
    r.version = {"6.4.1", "/opt/rocm-6.4.1/.info/version"};
    f.toolkits.rocm.push_back(r);
    f.permissions.identity = user_identity();
    f.permissions.kfd = make_node("/dev/kfd", false);
    f.permissions.render_nodes = {make_node("/dev/dri/renderD128", false)};
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+cu124", "12.4")));
    f.python.envs.push_back(make_python("system", "/usr/bin/python3.12"));
    ToolRun t = make_tool("rocminfo", "rocminfo");
    t.exit_code = 1;
    t.failure = "ROCk module is NOT loaded";
    f.tools.push_back(t);
    out.push_back(f);
  }
  { // After the install: AMD firmware missing on Debian; an HGX H100 without its Fabric Manager.
    Facts f = amd_machine({120001});
    f.os.id = {"debian", "/etc/os-release"};
    f.kernel_log.read = true;
    KernelEvent e;
    e.kind = KernelEventKind::firmware_missing;
    e.pci = f.gpus[0].bdf;
    e.detail = "amdgpu/gc_12_0_1_pfp.bin";
    e.count = 1;
    e.first_line = e.last_line =
        "amdgpu: Direct firmware load for amdgpu/gc_12_0_1_pfp.bin failed with error -2";
    f.kernel_log.events.push_back(e);
    out.push_back(f);
    Facts h = nvidia_machine(8);
    h.fabric.nvswitches.push_back({"0000:07:00.0", 0x22a3, "GH100 [H100 NVSwitch]", 3, {}});
    out.push_back(h);
  }
  { // AMD without /dev/kfd.
    Facts f = amd_machine();
    f.amd.kfd_device = false;
    out.push_back(f);
  }
  { // NVIDIA with nvidia-smi's "Driver/library version mismatch".
    Facts f = nvidia_machine(1, "535.183.01");
    f.nvidia.smi_driver_version = {};
    f.nvidia.smi_mismatch = true;
    out.push_back(f);
  }
  { // Configuration: DKMS and Secure Boot, repositories, paths, Docker, PyTorch's CUDA, multi-GPU IOMMU.
    Facts f = nvidia_machine(1, "");
    f.os.kernel_release = {"6.8.0-51-generic", "/proc/sys/kernel/osrelease"};
    f.os.id = {"ubuntu", "/etc/os-release"};
    f.os.version_id = {"24.04", "/etc/os-release"};
    f.os.codename = {"noble", "/etc/os-release"};
    f.boot.dkms_ran = true;
    f.boot.dkms = {{"nvidia", "550.120", "6.8.0-45-generic", "x86_64", "installed", ""}};
    f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
    RepoSource repo;
    repo.vendor = "amd";
    repo.kind = "apt";
    repo.uri = "https://repo.radeon.com/rocm/apt/6.1.3";
    repo.suite = "jammy";
    repo.origin = "/etc/apt/sources.list.d/rocm.list:1";
    f.repos.sources.push_back(repo);
    StackPointer a, b;
    a.what = "nvcc on PATH";
    a.path = a.resolved = "/usr/local/cuda-12.1";
    a.exists = true;
    a.version = {"12.1", "cmd nvcc-version"};
    b = a;
    b.what = "CUDA_HOME";
    b.path = b.resolved = "/usr/local/cuda-11.8";
    b.version = {"11.8", "/usr/local/cuda-11.8/version.json"};
    f.stack_paths.cuda = {a, b};
    PathSetting leftover;
    leftover.variable = "PATH";
    leftover.entry = leftover.resolved = "/opt/rocm/bin";
    leftover.exists = false;
    leftover.stack = Vendor::amd;
    leftover.origin = "/home/alice/.bashrc:12";
    f.stack_paths.settings.push_back(leftover);
    f.containers.docker_installed = true;
    f.containers.docker_info_ok = true;
    f.containers.runtimes = {"runc"};
    out.push_back(f);
    Facts g = nvidia_machine(1, "470.256.02");
    g.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1+cu124", "12.4")));
    out.push_back(g);
    Facts h = amd_machine({90010, 90010});
    h.os.kernel_cmdline = {"ro quiet", "/proc/cmdline"};
    out.push_back(h);
  }
  out.push_back(Facts{});
  return out;
}

} // namespace

TEST_CASE("check: the catalogue and the fix catalogue load") {
  auto cat = load_catalogue();
  REQUIRE_MESSAGE(cat.has_value(), (cat ? std::string() : cat.error()));
  CHECK_FALSE(cat->checks.empty());
  CHECK_FALSE(cat->fixes.empty());
}

TEST_CASE("check: every registered check has a complete catalogue entry") {
  std::set<std::string> seen;
  for (const auto& e : check_registry()) {
    CAPTURE(e.id);
    CHECK_MESSAGE(seen.insert(e.id).second, "registered twice");
    bool has_function = e.run != nullptr;
    CHECK(has_function);
    const CatalogueEntry* entry = catalogue().find(e.id);
    REQUIRE_MESSAGE(entry != nullptr, "no entry in checks/catalogue.yaml");
    CHECK_FALSE(entry->title.empty());
    CHECK_FALSE(entry->what.empty());
    CHECK_FALSE(entry->why.empty());
    CHECK_FALSE(entry->fix.empty());
    const auto& areas = area_order();
    CHECK_MESSAGE(std::find(areas.begin(), areas.end(), entry->area) != areas.end(),
                  "unknown area " << entry->area);
    // "error", or "error when ..., info otherwise": every status it names is a report status.
    std::string first = entry->fires_status.substr(0, entry->fires_status.find(' '));
    CHECK_MESSAGE(known_status(first), "status \"" << entry->fires_status << "\"");
    // Ids are "area.name": lower case, digits and dashes.
    std::string id = e.id;
    bool well_formed = id.find('.') != std::string::npos && id.front() != '.' && id.back() != '.';
    for (char c : id)
      well_formed = well_formed && (std::islower(static_cast<unsigned char>(c)) ||
                                    std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-');
    CHECK(well_formed);
  }
}

TEST_CASE("check: every catalogue entry is registered, once") {
  auto ids = registry_ids();
  std::set<std::string> seen;
  for (const auto& entry : catalogue().checks) {
    CAPTURE(entry.id);
    CHECK_MESSAGE(ids.count(entry.id) == 1, "in checks/catalogue.yaml but not in checks/registry.cpp");
    CHECK(seen.insert(entry.id).second);
  }
  CHECK(catalogue().checks.size() == check_registry().size());
}

TEST_CASE("check: every fix id the catalogue lists exists in fixes/catalogue.yaml") {
  for (const auto& entry : catalogue().checks)
    for (const auto& fix : entry.fixes) {
      CAPTURE(entry.id);
      CAPTURE(fix);
      CHECK(catalogue().find_fix(fix) != nullptr);
    }
  // The fix ids shared/spec/checks-v1.md refers to.
  for (const char* fix :
       {"install-nvidia", "install-rocm", "purge-nvidia", "purge-rocm", "blacklist-nouveau", "reboot",
        "dkms-rebuild", "enroll-mok", "kernel-iommu-pt", "env-cuda-paths", "env-cleanup",
        "env-unset-hsa-override", "env-visible-devices", "env-nccl-defaults", "groups-render-video",
        "torch-reinstall", "repo-fix-codename", "install-nvidia-container-toolkit"}) {
    CAPTURE(fix);
    const FixEntry* f = catalogue().find_fix(fix);
    REQUIRE(f != nullptr);
    CHECK_FALSE(f->title.empty());
    CHECK_FALSE(f->description.empty());
  }
  std::set<std::string> fix_ids;
  for (const auto& f : catalogue().fixes)
    CHECK_MESSAGE(fix_ids.insert(f.id).second, f.id << " listed twice");
}

TEST_CASE("check: every fix id a check emits is in its catalogue entry and in fixes/catalogue.yaml") {
  std::set<std::string> emitted;
  std::set<std::string> fired;
  for (const auto& f : broken_machines()) {
    Facts facts = linked(f);
    CheckContext ctx{facts, kb()};
    auto results = run_checks(ctx, catalogue(), builtin_checks());
    for (const auto& r : results) {
      CAPTURE(describe(r));
      if (r.status == Status::warn || r.status == Status::error) fired.insert(r.id);
      for (const auto& fix : r.fixes) {
        emitted.insert(fix);
        const CatalogueEntry* entry = catalogue().find(r.id);
        REQUIRE(entry != nullptr);
        CHECK(std::find(entry->fixes.begin(), entry->fixes.end(), fix) != entry->fixes.end());
        CHECK(catalogue().find_fix(fix) != nullptr);
      }
    }
  }
  // The machines above do reach the checks that carry fixes.
  for (const auto& entry : catalogue().checks)
    for (const auto& fix : entry.fixes) {
      CAPTURE(entry.id);
      CAPTURE(fix);
      CHECK(emitted.count(fix) == 1);
    }
  CHECK(fired.size() >= 15);
}

TEST_CASE("check: every warn and error on the broken machines ends in a fix or an action") {
  std::set<std::string> acted;
  for (const auto& f : broken_machines()) {
    Facts facts = linked(f);
    CheckContext ctx{facts, kb()};
    for (const auto& r : run_checks(ctx, catalogue(), builtin_checks())) {
      if (r.status != Status::warn && r.status != Status::error) continue;
      CAPTURE(describe(r));
      CHECK((!r.fixes.empty() || r.action.has_value()));
      if (r.action) acted.insert(r.id);
    }
  }
  CHECK(acted.size() >= 3); // the machines reach checks whose results carry their own action
}

TEST_CASE(
    "check: a result's action: its own first, the catalogue's only where it has neither fix nor action") {
  const std::vector<std::string> fixes = {"reboot"};
  const Action fallback = Action::step("Reseat the card.");
  Results r;
  r.add(Status::warn, "a", "with the catalogue's fixes");
  r.add(Status::error, "b", "no fix applies", {}, no_fix);
  r.add(Status::warn, "c", "its own action", {}, no_fix);
  r.act(Action::command({{"unset", "NCCL_DEBUG"}}));
  r.add(Status::info, "d", "worth knowing");
  r.pass("e", "fine");
  CHECK(r.offer_fixes(fixes, fallback).empty());
  const auto& items = r.items();
  CHECK(items[0].fixes == fixes);
  CHECK_FALSE(items[0].action.has_value());
  REQUIRE(items[1].action.has_value());
  CHECK(items[1].action->text == "Reseat the card.");
  CHECK(items[1].action->kind == Action::Kind::step);
  REQUIRE(items[2].action.has_value());
  CHECK(items[2].action->text == "unset NCCL_DEBUG");
  CHECK(items[2].action->kind == Action::Kind::command);
  CHECK_FALSE(items[3].action.has_value()); // info and pass: nothing to do
  CHECK_FALSE(items[4].action.has_value());
}

TEST_CASE("check: an action's command quotes every word, so a value from a snapshot is never code") {
  // Each word as bash reads it back: a hostile interface name or path is one inert word.
  CHECK(Action::command({{"export", "NCCL_SOCKET_IFNAME=eth0"}}).text == "export NCCL_SOCKET_IFNAME=eth0");
  CHECK(Action::command({{"export", "X=$(touch /tmp/p)"}, {"unset", "a;b"}}).text ==
        "export 'X=$(touch /tmp/p)'; unset 'a;b'");
  CHECK(Action::command({{"/home/o'neil/venv/bin/python3", "-m", "pip"}}).text ==
        "'/home/o'\\''neil/venv/bin/python3' -m pip");
  Action esc = Action::command({{"export", "A=\x1b]0;owned\x07"}});
  CHECK(esc.text == "export $'A=\\x1b]0;owned\\x07'");
  CHECK(esc.text.find('\x1b') == std::string::npos);
}

TEST_CASE("check: a value with a NUL byte makes the action a step, and the check keeps its result") {
  // bash cannot hold a NUL byte; shell_quote refuses one, and that refusal lost the check's every result.
  Action nul = Action::command({{"export", std::string("NCCL_IB_DISABLE=1\0x", 19)}});
  CHECK(nul.kind == Action::Kind::step);
  CHECK(contains(nul.text, "NUL byte"));
  Facts f = nvidia_machine();
  set_env(f, "NCCL_IB_DISABEL", std::string("1\0x", 3)); // the value NCCL_IB_DISABLE would be given
  Result r = single(run_check("env.nccl-unknown", f));
  CHECK(r.status == Status::warn);
  CHECK(r.subject == "NCCL_IB_DISABEL");
  REQUIRE(r.action.has_value());
  CHECK(r.action->kind == Action::Kind::step);
}

TEST_CASE("check: every check gives at least one result, with id and title, on any machine") {
  auto machines = broken_machines();
  machines.push_back(nvidia_machine());
  machines.push_back(amd_machine({110000, 100301, 120001}));
  for (const auto& f : machines) {
    Facts facts = linked(f);
    CheckContext ctx{facts, kb()};
    auto results = run_checks(ctx, catalogue(), builtin_checks());
    std::set<std::string> ids;
    for (const auto& r : results) {
      CAPTURE(describe(r));
      ids.insert(r.id);
      CHECK_FALSE(r.title.empty());
      CHECK_FALSE(r.message.empty());
      CHECK_FALSE(contains(r.message, "failed inside gpudoctor"));
      if (r.status == Status::warn || r.status == Status::error) CHECK_FALSE(r.evidence.empty());
    }
    CHECK(ids == registry_ids());
  }
}
