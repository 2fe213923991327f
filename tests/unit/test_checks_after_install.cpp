// The after-the-install checks: kernel.xid, kernel.gpu-lost, kernel.gpu-reset, driver.init-failed,
// driver.firmware-missing, driver.module-flavour, fabric.manager, gpu.memory-errors, gpu.throttled.
#include "check_fixtures.hpp"
#include "parse/parsers_system.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;
using Kind = KernelEventKind;

namespace {

KernelEvent event(Kind kind, std::optional<int> code, const std::string& pci, std::size_t count = 1,
                  int boot = 0, const std::string& detail = "") {
  KernelEvent e;
  e.kind = kind;
  e.code = code;
  e.pci = pci;
  e.detail = detail;
  e.count = count;
  e.boot = boot;
  e.first_time = "100.5";
  e.last_time = count > 1 ? "900.25" : "100.5";
  e.boot_relative = true;
  e.first_line = "NVRM: first line";
  e.last_line = "NVRM: last line";
  return e;
}

Facts with_log(Facts f, std::vector<KernelEvent> events) {
  f.kernel_log.read = true;
  f.kernel_log.reader = "dmesg";
  f.kernel_log.source = "cmd dmesg";
  f.kernel_log.records = 1200;
  f.kernel_log.events = std::move(events);
  return f;
}

} // namespace

TEST_CASE("check: kernel-log checks skip, saying how to get the log, when it could not be read") {
  Facts f = nvidia_machine();
  f.kernel_log.why_not =
      "dmesg: not readable by this user (kernel.dmesg_restrict = 1); journalctl: this user "
      "sees no kernel messages (only members of adm or systemd-journal do)";
  f.permissions.identity = user_identity();
  for (const char* id : {"kernel.xid", "kernel.gpu-lost", "kernel.gpu-reset", "driver.init-failed",
                         "driver.firmware-missing"}) {
    CAPTURE(id);
    auto r = single(run_check(id, f));
    expect_quiet(r, Status::skip);
    CHECK(contains(r.message, "dmesg_restrict = 1"));
    CHECK(contains(r.message, "sudo gpudoctor check"));
    CHECK(contains(r.message, "sudo usermod -aG adm alice"));
  }
}

TEST_CASE("check: kernel.xid, one result per code and GPU, its status from the catalogue") {
  SUBCASE("application Xids 13, 31, 43 on a busy server: info, never error, with count and times") {
    Facts f = with_log(nvidia_machine(2),
                       {event(Kind::xid, 13, "0000:18:00.0", 40), event(Kind::xid, 31, "0000:18:00.0", 2),
                        event(Kind::xid, 43, "0000:19:00.0")});
    f.kernel_log.events[0].process = "pid 77, train.py";
    auto results = run_check("kernel.xid", f);
    REQUIRE(results.size() == 3);
    CHECK(count_status(results, Status::info) == 3);
    expect_quiet(results[0], Status::info, "gpu0 (0000:18:00.0)");
    CHECK(contains(results[0].message, "Xid 13 (Graphics Engine Exception) (pid 77, train.py), 40 times this "
                                       "boot, first at 100.5 s after boot, last at 900.25 s after boot"));
    CHECK(contains(results[0].message, "restart the application"));
    CHECK(results[2].subject == "gpu1 (0000:19:00.0)");
  }
  SUBCASE("Xid 79 this boot: error, reboot") {
    Facts f = with_log(nvidia_machine(), {event(Kind::xid, 79, "0000:18:00.0")});
    expect_fired(single(run_check("kernel.xid", f)), Status::error, "gpu0 (0000:18:00.0)",
                 {"Xid 79 (GPU has fallen off the bus), once this boot", "reboot the machine"}, {"reboot"});
  }
  SUBCASE("Xid 79 in the previous boot: warn while the GPU is back, error while it is not") {
    Facts f = with_log(nvidia_machine(), {event(Kind::xid, 79, "0000:18:00.0", 1, -1)});
    f.kernel_log.previous_read = true;
    auto r = single(run_check("kernel.xid", f));
    CHECK(r.status == Status::warn);
    CHECK(contains(r.message, "once in the previous boot"));
    CHECK(contains(r.evidence[0], "cmd journal-kernel-previous"));
    Facts gone = with_log(nvidia_machine(), {event(Kind::xid, 79, "0000:3b:00.0", 1, -1)});
    auto g = single(run_check("kernel.xid", gone));
    CHECK(g.status == Status::error);
    CHECK(g.subject == "PCI 0000:3b:00.0");
  }
  SUBCASE("Xid 63 warns with a remap pending, is info once nvidia-smi shows none; 48 and 94 are errors") {
    Facts f = with_log(nvidia_machine(),
                       {event(Kind::xid, 48, "0000:18:00.0"), event(Kind::xid, 63, "0000:18:00.0"),
                        event(Kind::xid, 94, "0000:18:00.0")});
    f.nvidia.smi_gpus[0].bus_id = "00000000:18:00.0";
    f.nvidia.smi_gpus[0].health.remap_pending = true;
    auto results = run_check("kernel.xid", f);
    REQUIRE(results.size() == 3);
    CHECK(results[0].status == Status::error);
    CHECK(results[1].status == Status::warn);
    CHECK(contains(results[1].message, "reset"));
    CHECK(results[2].status == Status::error);
    f.nvidia.smi_gpus[0].health.remap_pending = false;
    CHECK(run_check("kernel.xid", f)[1].status == Status::info);
  }
  SUBCASE("a code the catalogue lacks warns; NVSwitch SXids: fatal error, non-fatal info") {
    Facts f =
        with_log(nvidia_machine(), {event(Kind::xid, 999, "0000:18:00.0"),
                                    event(Kind::sxid, 24007, "0000:c3:00.0", 1, 0, "Fatal, Link 30 timeout"),
                                    event(Kind::sxid, 12028, "0000:05:00.0", 3, 0, "Non-fatal, Link 32")});
    auto results = run_check("kernel.xid", f);
    REQUIRE(results.size() == 3);
    CHECK(results[0].status == Status::warn);
    CHECK(results[1].status == Status::error);
    CHECK(results[1].subject == "nvswitch (0000:c3:00.0)");
    CHECK(results[2].status == Status::info);
  }
  SUBCASE("no Xid: pass; no NVIDIA GPU: skip") {
    expect_quiet(single(run_check("kernel.xid", with_log(nvidia_machine(), {}))), Status::pass);
    expect_quiet(single(run_check("kernel.xid", with_log(amd_machine(), {}))), Status::skip);
  }
}

TEST_CASE("check: kernel.gpu-lost, from the bus, Xid 79 or a fatal AER on the port above the GPU") {
  SUBCASE("fallen off the bus: error, reboot") {
    Facts f = with_log(nvidia_machine(), {event(Kind::fallen_off_bus, {}, "0000:18:00.0")});
    expect_fired(single(run_check("kernel.gpu-lost", f)), Status::error, "gpu0 (0000:18:00.0)",
                 {"\"fallen off the bus\", once this boot", "Reboot"}, {"reboot"});
  }
  SUBCASE("a fatal AER reported by the port above the GPU names it") {
    Facts f = nvidia_machine();
    f.gpus[0].upstream_ports = {"0000:00:01.1"};
    KernelEvent aer = event(Kind::pcie_aer, {}, "0000:00:01.1", 1, 0, "Uncorrected (Fatal)");
    f = with_log(f, {aer, event(Kind::pcie_aer, {}, "0000:18:00.0", 9, 0, "Corrected")});
    expect_fired(single(run_check("kernel.gpu-lost", f)), Status::error, "gpu0 (0000:18:00.0)",
                 {"a fatal PCIe error (AER)"}, {"reboot"});
  }
  SUBCASE("only corrected AER lines, or nothing: pass") {
    Facts f = with_log(nvidia_machine(), {event(Kind::pcie_aer, {}, "0000:18:00.0", 9, 0, "Corrected")});
    expect_quiet(single(run_check("kernel.gpu-lost", f)), Status::pass);
  }
}

TEST_CASE("check: kernel.gpu-reset, one recovered reset warns, a loop or a failed reset is an error") {
  SUBCASE("one reset that succeeded") {
    Facts f = with_log(amd_machine(), {event(Kind::reset_begin, {}, "0000:03:00.0"),
                                       event(Kind::reset_succeeded, {}, "0000:03:00.0")});
    auto r = single(run_check("kernel.gpu-reset", f));
    CHECK(r.status == Status::warn);
    CHECK(contains(r.message, "Watch for repeats"));
  }
  SUBCASE("ring timeouts without an address belong to the only AMD GPU; three resets: error") {
    Facts f = with_log(amd_machine(), {event(Kind::ring_timeout, {}, "", 3, 0, "gfx_0.0.0"),
                                       event(Kind::reset_begin, {}, "0000:03:00.0", 3)});
    auto r = single(run_check("kernel.gpu-reset", f));
    CHECK(r.status == Status::error);
    CHECK(r.subject == "gpu0 (0000:03:00.0)");
    CHECK(contains(r.message, "ring gfx_0.0.0 timeout 3 times this boot"));
  }
  SUBCASE("a failed reset, or an NVIDIA GSP timeout: error") {
    Facts f = with_log(amd_machine(), {event(Kind::reset_failed, {}, "0000:03:00.0")});
    CHECK(single(run_check("kernel.gpu-reset", f)).status == Status::error);
    Facts n = with_log(nvidia_machine(), {event(Kind::gsp_error, {}, "", 4, 0, "GPU6")});
    auto r = single(run_check("kernel.gpu-reset", n));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "nvidia-smi -r"));
  }
}

TEST_CASE("check: driver.init-failed") {
  Facts f = with_log(nvidia_machine(), {event(Kind::init_failed, {}, "0000:18:00.0")});
  auto r = single(run_check("driver.init-failed", f));
  CHECK(r.status == Status::error);
  CHECK(contains(r.message, "RmInitAdapter failed once this boot"));
  Facts old = with_log(nvidia_machine(), {event(Kind::init_failed, {}, "0000:18:00.0", 1, -1)});
  CHECK(single(run_check("driver.init-failed", old)).status == Status::warn);
  expect_quiet(single(run_check("driver.init-failed", with_log(nvidia_machine(), {}))), Status::pass);
}

TEST_CASE("check: driver.init-failed after the GPU fell off the bus blames the bus, not the driver") {
  // NVRM re-probes a GPU that fell off the bus and fails (NVSentinel issue 155's log): the driver is not
  // the cause, and its usual suspects (module flavour, firmware) would send the user the wrong way.
  Facts f = with_log(nvidia_machine(), {event(Kind::fallen_off_bus, {}, "0000:18:00.0"),
                                        event(Kind::probe_failed, {}, "0000:18:00.0")});
  auto r = single(run_check("driver.init-failed", f));
  CHECK(r.status == Status::error);
  CHECK(contains(r.message, "fell off the bus"));
  CHECK(contains(r.message, "kernel.gpu-lost"));
  CHECK(!contains(r.message, "driver.module-flavour"));
}

TEST_CASE("check: driver.firmware-missing names the package of this distribution, or a stale initramfs") {
  Facts f = with_log(amd_machine({120001}),
                     {event(Kind::firmware_missing, {}, "0000:03:00.0", 1, 0, "amdgpu/gc_12_0_1_pfp.bin"),
                      event(Kind::firmware_missing, {}, "0000:03:00.0", 1, 0, "amdgpu/gc_12_0_1_me.bin")});
  f.os.id = {"debian", "/etc/os-release:1"};
  f.firmware = {true, "/lib/firmware/amdgpu", {"gc_11_0_0_me.bin", "gc_12_0_1_me.bin.zst"}};
  auto r = single(run_check("driver.firmware-missing", f));
  expect_fired(r, Status::error, "gpu0 (0000:03:00.0)",
               {"2 firmware files",
                "Missing (/lib/firmware/amdgpu lacks them, also as .zst and .xz): "
                "amdgpu/gc_12_0_1_pfp.bin",
                "firmware-amd-graphics (in the non-free-firmware component: enable it",
                "On disk now: amdgpu/gc_12_0_1_me.bin", "initramfs"},
               {"install-firmware"});
  f.packages.installed["firmware-amd-graphics"] = "20230210-5";
  CHECK(contains(single(run_check("driver.firmware-missing", f)).message,
                 "a newer firmware-amd-graphics than the installed 20230210-5"));
  f.os.id = {"ubuntu", "/etc/os-release:1"};
  CHECK(contains(single(run_check("driver.firmware-missing", f)).message, "Install linux-firmware"));
  f.packages.installed["amdgpu-dkms"] = "1:6.12.12-2164967.24.04";
  CHECK(contains(single(run_check("driver.firmware-missing", f)).message, "amdgpu-dkms-firmware"));
}

TEST_CASE("check: driver.module-flavour") {
  SUBCASE("an RTX 5090 with the proprietary module: error; with the open one: pass") {
    Facts f = nvidia_machine(1, "570.86.15");
    f.gpus[0] = make_nvidia_gpu(0, 0x2b85);
    f.nvidia.open_kernel_module = false;
    expect_fired(single(run_check("driver.module-flavour", f)), Status::error, "gpu0 (0000:18:00.0)",
                 {"runs only with the open NVIDIA kernel modules"}, {"install-nvidia"});
    f.nvidia.open_kernel_module = true;
    expect_quiet(single(run_check("driver.module-flavour", f)), Status::pass, "gpu0 (0000:18:00.0)");
  }
  SUBCASE("a V100 with the open module installed (modinfo, not loaded): error") {
    Facts f = nvidia_machine(1, "");
    f.gpus[0] = make_nvidia_gpu(0, 0x1db5);
    f.nvidia.modinfo_license = {"Dual MIT/GPL", "cmd modinfo-nvidia"};
    expect_fired(single(run_check("driver.module-flavour", f)), Status::error, "gpu0 (0000:18:00.0)",
                 {"predates the GSP"}, {"install-nvidia"});
  }
  SUBCASE("NVRM's own words, even for a GPU the tables do not know") {
    Facts f = with_log(nvidia_machine(1, ""), {event(Kind::open_module_required, {}, "0000:18:00.0")});
    f.gpus[0].model.reset();
    expect_fired(single(run_check("driver.module-flavour", f)), Status::error, "gpu0 (0000:18:00.0)",
                 {"requires use of the NVIDIA open kernel modules"}, {"install-nvidia"});
  }
  SUBCASE("no module loaded or installed: skip") {
    expect_quiet(single(run_check("driver.module-flavour", nvidia_machine(1, ""))), Status::skip,
                 "gpu0 (0000:18:00.0)");
  }
}

TEST_CASE("check: fabric.manager") {
  auto hgx = [] {
    Facts f = nvidia_machine(8, "550.90.07");
    f.fabric.nvswitches.push_back({"0000:07:00.0", 0x22a3, "GH100 [H100 NVSwitch]", 3, {}});
    f.packages.source = "/var/lib/dpkg/status";
    for (auto& g : f.nvidia.smi_gpus) {
      g.health.fabric_state = "Completed";
      g.health.fabric_status = "Success";
    }
    return f;
  };
  SUBCASE("no Fabric Manager: error, error 802") {
    expect_fired(single(run_check("fabric.manager", hgx())), Status::error, "",
                 {"the nvidia-fabricmanager package is not installed", "error 802"},
                 {"install-fabric-manager"});
  }
  SUBCASE("another version than the driver, or the service down: error") {
    Facts f = hgx();
    f.fabric.manager_package = {"nvidia-fabricmanager-550", "/var/lib/dpkg/status"};
    f.fabric.manager_version = {"550.54.15", "/var/lib/dpkg/status"};
    f.fabric.service_state = {"failed", "cmd systemctl-fabricmanager"};
    auto r = single(run_check("fabric.manager", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "the Fabric Manager is 550.54.15 but the driver is 550.90.07"));
    CHECK(contains(r.message, "the nvidia-fabricmanager service is failed"));
  }
  SUBCASE("matching and active, the fabric trained: pass") {
    Facts f = hgx();
    f.fabric.manager_package = {"nvidia-fabricmanager-550", "/var/lib/dpkg/status"};
    f.fabric.manager_version = {"550.90.07", "/var/lib/dpkg/status"};
    f.fabric.service_state = {"active", "cmd systemctl-fabricmanager"};
    expect_quiet(single(run_check("fabric.manager", f)), Status::pass);
    f.nvidia.smi_gpus[3].health.fabric_state = "In Progress";
    CHECK(single(run_check("fabric.manager", f)).status == Status::error);
  }
  SUBCASE("an HGX B200 (no switch function, GPUs in a fabric) without the NVLink Subnet Manager: error") {
    Facts f = nvidia_machine(8, "570.86.15");
    for (auto& g : f.gpus)
      g = make_nvidia_gpu(g.index, 0x2901);
    for (auto& g : f.nvidia.smi_gpus)
      g.health.fabric_state = "Not Started";
    f.fabric.manager_package = {"nvidia-fabricmanager", "/var/lib/dpkg/status"};
    f.fabric.manager_version = {"570.86.15", "/var/lib/dpkg/status"};
    f.fabric.service_state = {"active", "cmd systemctl-fabricmanager"};
    auto r = single(run_check("fabric.manager", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "NVLink Subnet Manager (nvlsm)"));
    CHECK(contains(r.message, "8 of 8 GPUs report the fabric state \"Not Started\""));
  }
  SUBCASE("no NVSwitch: skip") {
    expect_quiet(single(run_check("fabric.manager", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: gpu.memory-errors and gpu.throttled") {
  Facts f = nvidia_machine(4);
  for (std::size_t i = 0; i < 4; ++i) {
    f.nvidia.smi_gpus[i].bus_id = "0000" + f.gpus[i].bdf;
    f.nvidia.smi_gpus[i].health.ecc_mode = "Enabled";
    f.nvidia.smi_gpus[i].health.volatile_uncorrectable = 0;
    f.nvidia.smi_gpus[i].health.aggregate_uncorrectable = 0;
    f.nvidia.smi_gpus[i].health.remap_pending = false;
    f.nvidia.smi_gpus[i].health.remap_failure = false;
  }
  f.nvidia.smi_gpus[0].health.remap_pending = true;
  f.nvidia.smi_gpus[1].health.volatile_uncorrectable = 2;
  f.nvidia.smi_gpus[2].health.aggregate_uncorrectable = 5;
  auto results = run_check("gpu.memory-errors", f);
  REQUIRE(results.size() == 4);
  expect_fired(results[0], Status::warn, "gpu0 (0000:18:00.0)", {"a row remap is pending", "nvidia-smi -r"},
               {"reboot"});
  expect_fired(results[1], Status::error, "gpu1 (0000:19:00.0)",
               {"2 uncorrectable ECC errors since the last GPU reset"}, {"reboot"});
  CHECK(results[2].status == Status::info);
  CHECK(results[3].status == Status::pass);
  f.nvidia.smi_gpus[3].health.remap_failure = true;
  CHECK(run_check("gpu.memory-errors", f)[3].status == Status::error);

  Facts amd = amd_machine();
  amd.gpus[0].ras = {{"umc", 1, 40, "/sys/bus/pci/devices/0000:03:00.0/ras/umc_err_count"}};
  expect_fired(single(run_check("gpu.memory-errors", amd)), Status::error, "gpu0 (0000:03:00.0)", {"umc 1"},
               {"reboot"});
  expect_quiet(single(run_check("gpu.memory-errors", amd_machine())), Status::skip);

  f.nvidia.smi_gpus[1].health.clocks_held_by = {"HW Slowdown", "HW Thermal Slowdown"};
  auto t = run_check("gpu.throttled", f);
  REQUIRE(t.size() == 4);
  CHECK(t[0].status == Status::pass);
  CHECK(t[1].status == Status::warn);
  CHECK(contains(t[1].message, "too hot"));
}

namespace {

// The previous reading of `f`'s machine: a report kept in this boot (or another), as collect_history reads
// it.
Facts with_reading(Facts f, bool same_boot) {
  f.history.boot_id = {"boot-now", "file /proc/sys/kernel/random/boot_id"};
  PreviousReading p;
  p.report = "20261205T054947.000001Z-ok.json";
  p.time = "2026-12-05T05:49:47Z";
  p.tool_version = "0.1.0";
  p.boot_id = same_boot ? "boot-now" : "boot-before";
  f.history.previous = p;
  return f;
}

} // namespace

TEST_CASE("check: counters judged as an increase since the last kept report (docs/fleet.md, History)") {
  SUBCASE("kernel.xid: a warning is for new lines; none new since the last reading is info, an error stays") {
    Facts f = with_reading(with_log(nvidia_machine(), {event(Kind::xid, 38, "0000:18:00.0", 3),
                                                       event(Kind::xid, 79, "0000:18:00.0")}),
                           true);
    f.history.previous->events = {{Kind::xid, 38, "0000:18:00.0", 3}, {Kind::xid, 79, "0000:18:00.0", 1}};
    auto results = run_check("kernel.xid", f);
    REQUIRE(results.size() == 2);
    CHECK(results[0].status == Status::info);
    CHECK(contains(results[0].message, "None new since the last kept report (2026-12-05T05:49:47Z)."));
    CHECK(contains(text::join(results[0].evidence, "\n"),
                   "history: 20261205T054947.000001Z-ok.json (kept 2026-12-05T05:49:47Z, gpudoctor 0.1.0): 3 "
                   "lines of this Xid then"));
    CHECK(results[1].status == Status::error); // the GPU fell off the bus: still so
    f.history.previous->events[0].count = 1;
    auto grown = run_check("kernel.xid", f);
    CHECK(grown[0].status == Status::warn);
    CHECK(contains(grown[0].message, "2 new since the last kept report"));
    f.history.previous->events[0].count = 5; // fewer now: the log was cleared; all of now is new
    CHECK(contains(run_check("kernel.xid", f)[0].message, "3 new since"));
    Facts other_boot =
        with_reading(with_log(nvidia_machine(), {event(Kind::xid, 38, "0000:18:00.0", 3)}), false);
    other_boot.history.previous->events = {{Kind::xid, 38, "0000:18:00.0", 3}};
    auto r = single(run_check("kernel.xid", other_boot));
    CHECK(r.status == Status::warn); // a reading of another boot says nothing of this boot's lines
    CHECK(!contains(r.message, "since the last kept report"));
  }
  SUBCASE("gpu.memory-errors, NVIDIA: uncorrectable errors repaired since the last reading warn") {
    Facts f = with_reading(nvidia_machine(2), false);
    for (std::size_t i = 0; i < 2; ++i) {
      f.nvidia.smi_gpus[i].bus_id = "0000" + f.gpus[i].bdf;
      f.nvidia.smi_gpus[i].health.ecc_mode = "Enabled";
      f.nvidia.smi_gpus[i].health.volatile_uncorrectable = 0;
      f.nvidia.smi_gpus[i].health.aggregate_uncorrectable = 5;
      f.nvidia.smi_gpus[i].health.aggregate_correctable = 100;
      PreviousGpuCounters c;
      c.bdf = f.nvidia.smi_gpus[i].bus_id;
      c.aggregate_uncorrectable = i == 0 ? 3 : 5; // lifetime counts: compared across boots
      c.aggregate_correctable = i == 0 ? 100 : 90;
      f.history.previous->gpus.push_back(c);
    }
    auto results = run_check("gpu.memory-errors", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[0], Status::warn, "gpu0 (0000:18:00.0)",
                 {"2 new uncorrectable ECC errors since the last kept report (2026-12-05T05:49:47Z)"},
                 {"reboot"});
    CHECK(results[1].status == Status::info);
    CHECK(contains(results[1].message, "10 ECC errors were corrected since the last kept report"));
    // Only corrected errors since, on a GPU with nothing else to say: info, not a skip.
    f.nvidia.smi_gpus[1].health = {};
    f.nvidia.smi_gpus[1].health.aggregate_correctable = 91;
    auto only_corrected = run_check("gpu.memory-errors", f);
    REQUIRE(only_corrected.size() == 2);
    CHECK(only_corrected[1].status == Status::info);
    CHECK(contains(only_corrected[1].message, "1 ECC error was corrected"));
  }
  SUBCASE("gpu.memory-errors, AMD: counts since the driver loaded, compared within one boot") {
    Facts f = with_reading(amd_machine(), true);
    f.gpus[0].ras = {{"umc", 1, 40, "/sys/bus/pci/devices/0000:03:00.0/ras/umc_err_count"}};
    PreviousGpuCounters c;
    c.bdf = f.gpus[0].bdf;
    c.ras = {{"umc", 1, 30}};
    f.history.previous->gpus = {c};
    auto r = single(run_check("gpu.memory-errors", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "None is new since the last kept report"));
    f.history.previous->gpus[0].ras = {{"umc", 0, 30}};
    CHECK(contains(single(run_check("gpu.memory-errors", f)).message, "1 is new since"));
    f.gpus[0].ras[0].ue = 0;
    auto corrected = single(run_check("gpu.memory-errors", f));
    CHECK(corrected.status == Status::info);
    CHECK(contains(corrected.message, "amdgpu corrected 10 errors since the last kept report"));
    f.history.previous->boot_id = "boot-before";
    expect_quiet(single(run_check("gpu.memory-errors", f)), Status::pass, "gpu0 (0000:03:00.0)");
  }
  SUBCASE("gpu.nvlink-errors: CRC errors warn from 100 a second; without a reading of this boot, info") {
    Facts f = with_reading(nvidia_machine(), true);
    f.nvidia.smi_gpus[0].bus_id = "0000" + f.gpus[0].bdf;
    f.nvidia.nvlink_read = f.nvidia.nvlink_errors_read = true;
    NvlinkGpu g{0, "NVIDIA H200", f.nvidia.smi_gpus[0].uuid, {}};
    for (int link = 0; link < 2; ++link)
      g.links.push_back({.link = link,
                         .active = true,
                         .gbps = 26.562,
                         .replay_errors = 0,
                         .recovery_errors = 0,
                         .crc_errors = link == 1 ? 400000 : 0});
    f.nvidia.nvlink = {g};
    PreviousGpuCounters c;
    c.bdf = f.nvidia.smi_gpus[0].bus_id;
    c.nvlinks = {{0, 0, 0, 0}, {1, 0, 0, 40000}};
    f.history.previous->gpus = {c};
    f.history.previous->read_at = "2026-12-05T05:50:47Z"; // 60 s after the kept report: 6,000 a second
    auto r = single(run_check("gpu.nvlink-errors", f));
    expect_fired(r, Status::warn, "gpu0 (0000:18:00.0)",
                 {"NVLink link 1 of NVIDIA H200 counted 360000 CRC errors in the 60 s"}, {});
    f.history.previous->read_at = "2026-12-05T06:49:47Z"; // an hour: 100 a second exactly still warns
    CHECK(single(run_check("gpu.nvlink-errors", f)).status == Status::warn);
    f.history.previous->read_at = "2026-12-06T05:49:47Z"; // a day: 4 a second
    auto slow = single(run_check("gpu.nvlink-errors", f));
    CHECK(slow.status == Status::pass);
    CHECK(contains(slow.message, "360000 CRC errors, below DCGM's 100 a second"));
    f.history.previous->read_at.clear(); // a reading of an older gpudoctor: no rate, so no verdict on CRC
    CHECK(single(run_check("gpu.nvlink-errors", f)).status == Status::pass);
    f.history.previous->gpus[0].nvlinks.clear(); // a report of a run that read no NVLink counts
    auto unread = single(run_check("gpu.nvlink-errors", f));
    CHECK(unread.status == Status::info);
    CHECK(contains(unread.message, "has no NVLink counts of this GPU"));
    f.history.previous->boot_id = "boot-before"; // counts since driver load say nothing across boots
    CHECK(contains(single(run_check("gpu.nvlink-errors", f)).message, "is of another boot"));
    f.nvidia.nvlink_errors_read = false;
    CHECK(single(run_check("gpu.nvlink-errors", f)).status == Status::skip);
  }
}

TEST_CASE("check: amdgpu's bad-page table (gpu.memory-errors) and hwmon temperatures (gpu.throttled)") {
  const std::string table = "/sys/bus/pci/devices/0000:03:00.0/ras/gpu_vram_bad_pages";
  SUBCASE("the table parsed: R, P and F counted, the pending and failed lines first") {
    auto p = parse::amdgpu_bad_pages("0x00000001 : 0x00001000 : R\n0x00000002 : 0x00001000 : P\n"
                                     "garbage\n0x00000003 : 0x00001000 : F\nQuery currently inaccessible\n"
                                     "0x00000004 : 0x00001000 : X\n");
    CHECK(p.reserved == 1);
    CHECK(p.pending == 1);
    CHECK(p.failed == 1);
    REQUIRE(p.lines.size() == 3);
    CHECK(p.lines[0] == "0x00000002 : 0x00001000 : P");
    CHECK(p.lines[2] == "0x00000001 : 0x00001000 : R");
    std::string big;
    for (int i = 0; i < 5000; ++i)
      big += "0x027f5d43 : 0x00001000 : R\n";
    auto many = parse::amdgpu_bad_pages(big);
    CHECK(many.reserved == 5000);
    CHECK(many.lines.size() == 8);
  }
  auto with_pages = [&](std::size_t r, std::size_t pending, std::size_t failed) {
    Facts f = amd_machine();
    f.gpus[0].bad_pages = VramBadPages{r, pending, failed, {"0x027f5d43 : 0x00001000 : R"}, table};
    return f;
  };
  SUBCASE("retired pages only: info; pending: warn, reboot; not retired: error, service") {
    auto r = single(run_check("gpu.memory-errors", with_pages(8, 0, 0)));
    expect_fired(r, Status::info, "gpu0 (0000:03:00.0)", {"retired 8 pages", "keeps them out of use"}, {});
    CHECK(r.evidence[0] == table + ": 8 retired (R), 0 pending (P), 0 not retired (F)");
    CHECK(r.evidence[1] == table + ": 0x027f5d43 : 0x00001000 : R");
    expect_fired(single(run_check("gpu.memory-errors", with_pages(8, 2, 0))), Status::warn,
                 "gpu0 (0000:03:00.0)",
                 {"2 pages of VRAM with uncorrectable errors wait for retirement", "reboot"}, {"reboot"});
    expect_fired(single(run_check("gpu.memory-errors", with_pages(0, 1, 1))), Status::error,
                 "gpu0 (0000:03:00.0)", {"could not retire 1 page", "serviced"}, {"reboot"});
    expect_quiet(single(run_check("gpu.memory-errors", with_pages(0, 0, 0))), Status::pass,
                 "gpu0 (0000:03:00.0)");
  }
  SUBCASE("an uncorrectable count with the pages retired says so instead of asking for the reboot") {
    Facts f = with_pages(8, 0, 0);
    f.gpus[0].ras = {{"umc", 1, 0, "/sys/bus/pci/devices/0000:03:00.0/ras/umc_err_count"}};
    auto r = single(run_check("gpu.memory-errors", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "retired 8 pages"));
    CHECK_FALSE(contains(r.message, "Reboot so the bad pages are retired"));
  }
  SUBCASE("temperatures: at a critical limit warns, below passes, no limit passes") {
    Facts f = amd_machine({110000, 110000});
    f.gpus[0].sensors.source = "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2";
    f.gpus[0].sensors.temperatures = {{"edge", 92, 110.0, 115.0}, {"junction", 110, 110.0, 115.0}};
    f.gpus[1].sensors.source = "/sys/bus/pci/devices/0000:04:00.0/hwmon/hwmon3";
    f.gpus[1].sensors.temperatures = {{"edge", 43, 110.0, 115.0}, {"temp2", 120, std::nullopt, std::nullopt}};
    auto t = run_check("gpu.throttled", f);
    REQUIRE(t.size() == 2);
    expect_fired(t[0], Status::warn, "gpu0 (0000:03:00.0)",
                 {"junction 110 °C, its critical limit 110 °C (shutdown at 115 °C)", "fans"}, {});
    CHECK(t[0].evidence[1] == "/sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2: junction 110 °C, crit 110 °C, "
                              "emergency 115 °C");
    expect_quiet(t[1], Status::pass, "gpu1 (0000:04:00.0)");
    CHECK(single(run_check("gpu.throttled", amd_machine())).status == Status::skip);
  }
}

TEST_CASE("check: gpu.bar-small says what the GPU's Resizable BAR offers (resourceN_resize)") {
  constexpr std::uint64_t mib = 1ULL << 20;
  SUBCASE("NVIDIA BAR1 with RDMA devices") {
    Facts f = nvidia_machine();
    f.nvidia.smi_gpus[0].bar1_total_mib = 256;
    f.nvidia.smi_gpus[0].memory_total_mib = 16384;
    f.network.ib_devices = {"mlx5_0"};
    f.network.ib_source = "/sys/class/infiniband";
    auto plain = single(run_check("gpu.bar-small", f));
    CHECK(plain.status == Status::warn);
    CHECK(contains(plain.message, "where the GPU offers it")); // nothing read of its capability
    f.gpus[0].vram_bar_offered = 16384 * mib;
    auto offers = single(run_check("gpu.bar-small", f));
    CHECK(contains(offers.message, "The GPU offers a BAR1 of 16 GiB (Resizable BAR)"));
    CHECK(contains(text::join(offers.evidence, "\n"), "resource1_resize: at most 16384 MiB offered"));
    f.gpus[0].vram_bar_offered = 8192 * mib;
    CHECK(contains(single(run_check("gpu.bar-small", f)).message,
                   "offers a BAR1 of at most 8 GiB: only a GPU with a larger BAR helps"));
  }
  SUBCASE("AMD BAR0 with a PCIe peer; without one it passes") {
    Facts f = amd_machine({110000, 110000});
    for (auto& g : f.gpus) {
      g.vram_bytes_sysfs = 24560 * mib;
      g.vram_bar_bytes = 32768 * mib;
    }
    f.gpus[1].vram_bar_bytes = 256 * mib;
    f.gpus[1].vram_bar_offered = 32768 * mib;
    auto results = run_check("gpu.bar-small", f);
    REQUIRE(results.size() == 2);
    CHECK(results[0].status == Status::pass);
    CHECK(results[1].status == Status::warn);
    CHECK(contains(results[1].message, "2 AMD GPUs that reach each other over PCIe"));
    CHECK(contains(results[1].message, "The GPU offers a BAR0 of 32 GiB"));
    f.gpus.erase(f.gpus.begin()); // alone: nothing needs the whole memory visible
    CHECK(single(run_check("gpu.bar-small", f)).status == Status::pass);
  }
}
