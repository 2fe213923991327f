// The kernel log: every line form gives the same message, and the GPU drivers' messages become events tied to
// the PCI address they name, grouped with a count. Real samples from tests/data/realdata/dmesg-*.
#include "parse/kernel_log.hpp"
#include "unit/test_parse_util.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;
using Kind = KernelEventKind;

namespace {

const KernelEvent* find(const parse::KernelLogScan& s, Kind kind, std::optional<int> code = {}) {
  for (const auto& e : s.events)
    if (e.kind == kind && (!code || e.code == code)) return &e;
  return nullptr;
}

} // namespace

TEST_CASE("parse: kernel log line forms all give the message and its time") {
  const std::string msg = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus.";
  struct Form {
    std::string line, time;
    bool boot_relative;
  };
  const Form forms[] = {
      {"[ 1843.308145] " + msg, "1843.308145", true},                                         // dmesg
      {"<4>[ 1843.308145] " + msg, "1843.308145", true},                                      // dmesg -r
      {"[Mon May 11 13:59:53 2024] " + msg, "Mon May 11 13:59:53 2024", false},               // dmesg -T
      {"2024-05-11T13:59:53,123456+00:00 " + msg, "2024-05-11T13:59:53,123456+00:00", false}, // dmesg iso
      {"May 11 13:59:53 node7 kernel: " + msg, "May 11 13:59:53", false},               // journalctl short
      {"May  1 13:59:53.123456 node7 kernel: " + msg, "May  1 13:59:53.123456", false}, // short-precise
      {"2024-05-11T13:59:53+0000 node7 kernel: " + msg, "2024-05-11T13:59:53+0000", false}, // short-iso
      {"2024-05-11T13:59:53.123456+00:00 node7 kernel: " + msg, "2024-05-11T13:59:53.123456+00:00", false},
      {"Dec  2 22:11:34 theblob kernel: [ 2649.203914] " + msg, "Dec  2 22:11:34", false}, // syslog file
      {msg, "", false},                                                                    // pasted bare
  };
  for (const auto& f : forms) {
    CAPTURE(f.line);
    auto records = parse::kernel_records(f.line + "\n");
    REQUIRE(records.size() == 1);
    CHECK(records[0].message == msg);
    CHECK(records[0].time == f.time);
    CHECK(records[0].boot_relative == f.boot_relative);
    auto scan = parse::kernel_log(f.line);
    REQUIRE(scan.events.size() == 1);
    CHECK(scan.events[0].kind == Kind::xid);
    CHECK(scan.events[0].code == 79);
    CHECK(scan.events[0].pci == "0000:3b:00.0");
    CHECK(scan.events[0].process == "pid 1, python3");
    CHECK(scan.events[0].detail == "GPU has fallen off the bus.");
  }
}

TEST_CASE("parse: kernel log Xid lines, old and new, grouped by code and GPU with first and last time") {
  auto scan = parse::kernel_log("[  10.5] NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104\n"
                                "[  20.5] NVRM: Xid (PCI:0000:01:00): 13, pid=77, name=train.py, Graphics\n"
                                "[  30.5] NVRM: Xid (PCI:0000:02:00): 13, pid=78, Graphics Exception\n"
                                "[  40.5] NVRM: Xid (PCI:0000:01:00): 31, pid=77, name=train.py, MMU Fault\n"
                                "[  50.5] NVRM: Xid (PCI:0000:01:00): 13, pid=79, name=train.py, Graphics\n");
  CHECK(scan.records == 5);
  REQUIRE(scan.events.size() == 3);
  const auto& first = scan.events[0];
  CHECK(first.code == 13);
  CHECK(first.pci == "0000:01:00.0");
  CHECK(first.count == 3);
  CHECK(first.first_time == "10.5");
  CHECK(first.last_time == "50.5");
  CHECK(first.boot_relative);
  CHECK(first.last_line == "NVRM: Xid (PCI:0000:01:00): 13, pid=79, name=train.py, Graphics");
  CHECK(scan.events[1].pci == "0000:02:00.0");
  CHECK(scan.events[1].process == "pid 78");
  CHECK(scan.events[2].code == 31);
}

TEST_CASE("parse: kernel log, a real Xid 63 line pasted without its time") {
  auto scan = parse::kernel_log(realdata("dmesg-nvrm-xid63-row-remap-1.txt"));
  REQUIRE(scan.events.size() == 1);
  CHECK(scan.events[0].code == 63);
  CHECK(scan.events[0].pci == "0000:10:1c.0");
  CHECK(scan.events[0].process == "pid 1896");
  CHECK(scan.events[0].detail == "Row Remapper: New row marked for remapping, reset gpu to activate.");
}

TEST_CASE("parse: kernel log, a GPU fallen off the bus over continuation lines, without an Xid") {
  auto scan = parse::kernel_log(realdata("dmesg-nvrm-fallen-off-bus-no-xid-1.txt"));
  CHECK(scan.records == 3);
  const auto* lost = find(scan, Kind::fallen_off_bus);
  REQUIRE(lost);
  CHECK(lost->pci == "0000:b3:00.0");
  CHECK(lost->first_time == "1843.308145");
  const auto* probe = find(scan, Kind::probe_failed);
  REQUIRE(probe);
  CHECK(probe->pci.empty());
  CHECK_FALSE(find(scan, Kind::xid));
}

TEST_CASE("parse: kernel log, GSP heartbeat timeouts name the GPU by the driver's index") {
  auto scan = parse::kernel_log(realdata("dmesg-nvrm-gsp-heartbeat-timeout-h100-1.txt"));
  const auto* gsp = find(scan, Kind::gsp_error);
  REQUIRE(gsp);
  CHECK(gsp->detail == "GPU6");
  CHECK(gsp->count == 4);
  CHECK(scan.events.size() == 1);
}

TEST_CASE("parse: kernel log, amdgpu ring timeouts, resets and MES failures from syslog lines") {
  auto sdma = parse::kernel_log(realdata("dmesg-amdgpu-sdma-timeout-gpu-reset-1.txt"));
  const auto* ring = find(sdma, Kind::ring_timeout);
  REQUIRE(ring);
  CHECK(ring->detail == "sdma0");
  CHECK(ring->pci.empty()); // this kernel's message names no device
  CHECK(ring->first_time == "May 11 13:59:53");
  const auto* reset = find(sdma, Kind::reset_begin);
  REQUIRE(reset);
  CHECK(reset->pci == "0000:08:00.0");

  auto mes = parse::kernel_log(realdata("dmesg-amdgpu-mes-failed-gpu-reset-rx7900xtx-1.txt"));
  const auto* m = find(mes, Kind::mes_failure);
  REQUIRE(m);
  CHECK(m->count == 2);
  REQUIRE(find(mes, Kind::reset_begin));
  CHECK(find(mes, Kind::reset_begin)->pci == "0000:2f:00.0");

  CHECK(parse::kernel_log(realdata("dmesg-amdgpu-init-dkms-1.txt")).events.empty());
}

TEST_CASE("parse: kernel log, NVSwitch SXids, init failures, the open-module demand and firmware") {
  auto scan = parse::kernel_log(
      "[ 5.1] nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV "
      "error\n"
      "[ 5.2] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 24007, Fatal, Link 30 sourcetrack timeout error\n"
      "[ 6.0] NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x22:0x56:667)\n"
      "[ 7.0] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\n"
      "[ 7.0] NVRM: installed in this system requires use of the NVIDIA open kernel modules.\n"
      "[ 8.0] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_12_0_1_pfp.bin failed with error -2\n"
      "[ 8.1] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_12_0_1_me.bin failed with error -2\n"
      "[ 8.2] iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-86.ucode failed with error "
      "-2\n"
      "[ 8.3] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n"
      "[ 8.4] amdgpu: probe of 0000:03:00.0 failed with error -2\n");
  const auto* nonfatal = find(scan, Kind::sxid, 12028);
  REQUIRE(nonfatal);
  CHECK(nonfatal->pci == "0000:05:00.0");
  CHECK(nonfatal->detail == "Non-fatal, Link 32 egress non-posted PRIV error");
  REQUIRE(find(scan, Kind::sxid, 24007));
  REQUIRE(find(scan, Kind::init_failed));
  CHECK(find(scan, Kind::init_failed)->pci == "0000:41:00.0");
  const auto* open = find(scan, Kind::open_module_required);
  REQUIRE(open);
  CHECK(open->pci == "0000:01:00.0"); // named by the record before
  std::vector<std::string> files;
  for (const auto& e : scan.events)
    if (e.kind == Kind::firmware_missing) files.push_back(e.detail);
  CHECK(files == std::vector<std::string>{"amdgpu/gc_12_0_1_pfp.bin", "amdgpu/gc_12_0_1_me.bin"});
  REQUIRE(find(scan, Kind::init_fatal));
  CHECK(find(scan, Kind::probe_failed)->pci == "0000:03:00.0");
}

TEST_CASE("parse: kernel log, PCIe AER names the device that erred, and the port that reported it") {
  auto scan = parse::kernel_log(
      "[ 9.0] pcieport 0000:00:01.1: AER: Uncorrected (Fatal) error received: 0000:01:00.0\n"
      "[ 9.1] nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, "
      "(Unregistered "
      "Agent ID)\n"
      "[ 9.2] pcieport 0000:00:03.1: AER: Corrected error received: 0000:00:03.1\n"
      "[ 9.3] pcieport 0000:00:03.1: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction "
      "Layer\n");
  REQUIRE(scan.events.size() == 3); // the port's and the device's line of one error are one group
  CHECK(scan.events[0].pci == "0000:01:00.0");
  CHECK(scan.events[0].reporter == "0000:00:01.1");
  CHECK(scan.events[0].detail == "Uncorrected (Fatal)");
  CHECK(scan.events[0].count == 2);
  CHECK(scan.events[1].detail == "Corrected");
  CHECK(scan.events[2].detail == "Uncorrected (Non-Fatal)");
  CHECK(scan.events[2].pci == "0000:00:03.1");
}

TEST_CASE("parse: kernel log, journalctl's own lines are no records; the boot is stored") {
  auto scan =
      parse::kernel_log("-- Boot 3c2a6e0d6b3c4f2e8f3a --\n"
                        "2026-12-01T10:00:00+0000 node7 kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has "
                        "fallen off the bus.\n",
                        -1);
  CHECK(scan.records == 1);
  REQUIRE(scan.events.size() == 1);
  CHECK(scan.events[0].boot == -1);
  CHECK_FALSE(scan.no_entries);

  auto empty =
      parse::kernel_log("Hint: You are currently not seeing messages from other users and the system.\n"
                        "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
                        "-- No entries --\n");
  CHECK(empty.events.empty());
  CHECK_FALSE(empty.no_entries); // the hint is a record: the caller judges journalctl's words
}

TEST_CASE("parse: kernel log groups are capped, and a repeated line is one group") {
  std::string log;
  for (int i = 0; i < 1000; ++i)
    log += "[ 1.0] NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception\n";
  for (int i = 0; i < 400; ++i)
    log += "[ 2.0] amdgpu 0000:03:00.0: Direct firmware load for amdgpu/f" + std::to_string(i) +
           ".bin failed with error -2\n";
  auto scan = parse::kernel_log(log);
  CHECK(scan.events.size() == parse::k_max_kernel_event_groups);
  CHECK(scan.events[0].count == 1000);
  CHECK(scan.dropped == 400 - (parse::k_max_kernel_event_groups - 1));
}

TEST_CASE("parse: PCI addresses normalised") {
  CHECK(parse::normalize_pci_address("0000:10:1c") == "0000:10:1c.0");
  CHECK(parse::normalize_pci_address("0000:3B:00.0") == "0000:3b:00.0");
  CHECK(parse::normalize_pci_address("00000000:3b:00.0") == "0000:3b:00.0");
  CHECK(parse::normalize_pci_address("0000:3b:00.8").empty());
  CHECK(parse::normalize_pci_address("13:59:53").empty());
  CHECK(parse::normalize_pci_address("").empty());
}

TEST_CASE("parse: kernel log, modules refused for their signature; a tainting load is no refusal") {
  // The lines of kernel/module/signing.c and security/lockdown (knowledge health.yaml, LINUX-SIGNING).
  auto scan =
      parse::kernel_log("[ 3.1] Loading of unsigned module is rejected\n"
                        "[ 3.2] Lockdown: modprobe: unsigned module loading is restricted; see man "
                        "kernel_lockdown.7\n"
                        "[ 3.3] Lockdown: insmod: unsigned module loading is restricted; see man "
                        "kernel_lockdown.7\n"
                        "[ 3.4] nvidia: module verification failed: signature and/or required key missing "
                        "- tainting kernel\n"
                        "[ 3.5] Loading of module with unavailable key is rejected\n");
  REQUIRE(scan.events.size() == 3);
  CHECK(scan.events[0].kind == Kind::module_rejected);
  CHECK(scan.events[0].detail == "Loading of unsigned module is rejected");
  // The program's name is not part of the group: modprobe and insmod refused the same way.
  CHECK(scan.events[1].detail == "unsigned module loading is restricted; see man kernel_lockdown.7");
  CHECK(scan.events[1].count == 2);
  CHECK(scan.events[2].detail == "Loading of module with unavailable key is rejected");
  CHECK(kernel_event_name(Kind::module_rejected) == "module-rejected");
}
