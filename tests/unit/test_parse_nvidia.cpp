#include "parse/parsers.hpp"
#include "unit/test_parse_util.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;
using FailureKind = parse::NvidiaSmiFailure::Kind;

TEST_CASE("parse: /proc/driver/nvidia/version, proprietary, open and Jetson layouts") {
  auto p = parse::nvidia_proc_version(realdata("proc-driver-nvidia-version-proprietary-1.txt"));
  REQUIRE(p);
  CHECK(p->version == "384.98");
  CHECK_FALSE(p->open);
  CHECK(p->arch == "x86_64");
  CHECK(p->gcc == "gcc version 7.2.0 (Ubuntu 7.2.0-8ubuntu3)");

  auto o = parse::nvidia_proc_version(realdata("proc-driver-nvidia-version-open-kmod-1.txt"));
  REQUIRE(o);
  CHECK(o->version == "525.60.11");
  CHECK(o->open);
  CHECK(o->arch == "x86_64");
  CHECK(o->gcc == "gcc version 12.2.0 (GCC)");

  // Jetson prints the L4T release where a desktop driver prints its version.
  auto j = parse::nvidia_proc_version(realdata("proc-driver-nvidia-version-jetson-aarch64-1.txt"));
  REQUIRE(j);
  CHECK(j->version == "35.3.1");
  CHECK(j->open);
  CHECK(j->arch == "aarch64");
  CHECK(j->gcc == "gcc version 9.3.0 (Buildroot 2020.08)");

  auto w = parse::nvidia_proc_version(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\r\n");
  REQUIRE(w);
  CHECK(w->version == "550.90.07");
  CHECK(w->gcc.empty());

  CHECK_FALSE(parse::nvidia_proc_version(""));
  CHECK_FALSE(parse::nvidia_proc_version("GCC version:  gcc version 12.2.0 (GCC)\n"));
  CHECK_FALSE(parse::nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module"));
}

TEST_CASE("parse: nvidia-smi failures are classified") {
  auto d = parse::nvidia_smi_failure(realdata("nvidia-smi-fail-no-driver-comm-1.txt"));
  CHECK(d.kind == FailureKind::no_driver);
  CHECK(
      d.message.starts_with("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."));
  CHECK(d.nvml_library_version.empty());

  auto m = parse::nvidia_smi_failure(realdata("nvidia-smi-fail-nvml-mismatch-2.txt"));
  CHECK(m.kind == FailureKind::version_mismatch);
  CHECK(m.nvml_library_version == "550.144");
  CHECK(m.message == "Failed to initialize NVML: Driver/library version mismatch");

  auto n = parse::nvidia_smi_failure("No devices were found\n");
  CHECK(n.kind == FailureKind::no_devices);
  CHECK(n.message == "No devices were found");

  // Other lines are knowledge tool_errors.yaml's (test_collect_tool_errors.cpp).
  CHECK(parse::nvidia_smi_failure("Failed to initialize NVML: Unknown Error\n").kind == FailureKind::none);

  // Successful outputs say nothing, "No running processes found" included.
  for (const char* ok : {"nvidia-smi-default-a100-sxm4-40gb-1.txt", "nvidia-smi-default-h200-8gpu-1.txt",
                         "nvidia-smi-q-h100-sxm-560-1.txt", "nvidia-smi-q-x-rtx3090-1.xml"}) {
    CAPTURE(ok);
    auto f = parse::nvidia_smi_failure(realdata(ok));
    CHECK(f.kind == FailureKind::none);
    CHECK(f.message.empty());
  }
  CHECK(parse::nvidia_smi_failure("").kind == FailureKind::none);
}

TEST_CASE("parse: nvidia-smi -q -x, every realdata sample") {
  struct Row {
    const char* file;
    const char *driver, *cuda, *name, *bus_id, *uuid;
    long long mib;
  };
  const Row rows[] = {
      // MIG: four <mig_device> blocks carry their own 19968 MiB fb_memory_usage before the GPU's.
      {"nvidia-smi-q-x-a100-sxm4-80gb-mig-1.xml", "535.54.03", "12.2", "NVIDIA A100-SXM4-80GB",
       "00000000:01:00.0", "GPU-513536b6-7d19-9063-b049-1e69664bb298", 81920},
      {"nvidia-smi-q-x-a10g-1.xml", "515.105.01", "11.7", "NVIDIA A10G", "00000000:00:1E.0",
       "GPU-9a9a6c50-2a47-2f51-a902-b82c3b127e94", 23028},
      // No DOCTYPE; a driver too old to know the GTX 1660 Ti's name.
      {"nvidia-smi-q-x-gtx1660ti-old-driver-1.xml", "418.43", "10.1", "Graphics Device", "00000000:43:00.0",
       "GPU-304a277d-3545-63b8-3a36-dfde3c992989", 5912},
      {"nvidia-smi-q-x-rtx3080-schema-v13-1.xml", "595.58.03", "13.2", "NVIDIA GeForce RTX 3080",
       "00000000:0C:00.0", "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4", 10240},
      {"nvidia-smi-q-x-rtx3080-windows-wddm-1.xml", "536.40", "12.2", "NVIDIA GeForce RTX 3080",
       "00000000:04:00.0", "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4", 10240},
      {"nvidia-smi-q-x-rtx3090-1.xml", "525.147.05", "12.0", "NVIDIA GeForce RTX 3090", "00000000:00:10.0",
       "GPU-12345678-aaaa-bbbb-cccc-0123456789ab", 24576},
  };
  for (const auto& r : rows) {
    CAPTURE(r.file);
    auto x = parse::nvidia_smi_xml(realdata(r.file));
    REQUIRE(x);
    CHECK(x->driver_version == r.driver);
    CHECK(x->cuda_version == r.cuda);
    REQUIRE(x->gpus.size() == 1); // the A100 file says attached_gpus 4 but holds one <gpu>
    CHECK(x->gpus[0].name == r.name);
    CHECK(x->gpus[0].bus_id == r.bus_id);
    CHECK(x->gpus[0].uuid == r.uuid);
    CHECK(x->gpus[0].memory_total_mib == r.mib);
  }
}

TEST_CASE("parse: nvidia-smi -q -x, readings of the moment and compute processes, every realdata sample") {
  struct Row {
    const char* file;
    double temperature, power, limit;
    std::optional<int> compute; // nvidia-smi's process list: graphics (Xorg, a Windows desktop) is no compute
  };
  const Row rows[] = {
      {"nvidia-smi-q-x-a100-sxm4-80gb-mig-1.xml", 27, 67.03, 500, std::nullopt}, // gpu_power_readings
      {"nvidia-smi-q-x-a10g-1.xml", 17, 25.58, 300, 0},                          // enforced_power_limit
      {"nvidia-smi-q-x-gtx1660ti-old-driver-1.xml", 40, 8.93, 130, std::nullopt},
      {"nvidia-smi-q-x-rtx3080-schema-v13-1.xml", 27, 142.33, 320, std::nullopt}, // instant before average
      {"nvidia-smi-q-x-rtx3080-windows-wddm-1.xml", 31, 22.78, 0, 0},
      {"nvidia-smi-q-x-rtx3090-1.xml", 37, 27.23, 200, std::nullopt}, // enforced 200, default 350
  };
  for (const auto& r : rows) {
    CAPTURE(r.file);
    auto x = parse::nvidia_smi_xml(realdata(r.file));
    REQUIRE(x);
    REQUIRE(x->gpus.size() == 1);
    const auto& g = x->gpus[0];
    CHECK(g.temperature_celsius == doctest::Approx(r.temperature));
    CHECK(g.power_draw_watts == doctest::Approx(r.power));
    if (r.limit > 0) CHECK(g.power_limit_watts == doctest::Approx(r.limit));
    if (r.compute) CHECK(g.compute_processes == r.compute);
  }
  const char* busy = R"(<nvidia_smi_log><gpu id="00000000:17:00.0"><processes><process_info><type>C</type>
</process_info><process_info><type>C+G</type></process_info><process_info><type>G</type></process_info>
</processes><temperature><gpu_temp>N/A</gpu_temp></temperature></gpu></nvidia_smi_log>)";
  auto b = parse::nvidia_smi_xml(busy);
  REQUIRE(b);
  CHECK(b->gpus[0].compute_processes == 2);
  CHECK_FALSE(b->gpus[0].temperature_celsius); // N/A is no reading
}

TEST_CASE("parse: nvidia-smi -q -x and -q, MIG mode and devices and the BAR1 size") {
  auto a = parse::nvidia_smi_xml(realdata("nvidia-smi-q-x-a100-sxm4-80gb-mig-1.xml"));
  REQUIRE(a);
  CHECK(a->gpus[0].mig_current == "Enabled");
  CHECK(a->gpus[0].mig_pending == "Enabled");
  CHECK(a->gpus[0].mig_devices == 4);
  CHECK(a->gpus[0].bar1_total_mib == 131072); // the GPU's, not a MIG device's 32767
  auto r = parse::nvidia_smi_xml(realdata("nvidia-smi-q-x-rtx3090-1.xml"));
  REQUIRE(r);
  CHECK(r->gpus[0].mig_current.empty()); // N/A: no MIG on this GPU
  CHECK(r->gpus[0].bar1_total_mib == 32768);
  CHECK(r->gpus[0].sm_clock_mhz == doctest::Approx(0)); // idle: the clocks of the moment
  CHECK(r->gpus[0].memory_clock_mhz == doctest::Approx(405));
  auto w = parse::nvidia_smi_xml(realdata("nvidia-smi-q-x-rtx3080-windows-wddm-1.xml"));
  REQUIRE(w);
  CHECK(w->gpus[0].bar1_total_mib == 16384);

  // Enabled with an empty list, or with "None"; a pending change.
  auto none = parse::nvidia_smi_xml(R"(<nvidia_smi_log><gpu id="00000000:01:00.0"><mig_mode>
<current_mig>Enabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode><mig_devices>
None</mig_devices></gpu><gpu id="00000000:02:00.0"><mig_mode><current_mig>Enabled</current_mig>
</mig_mode><mig_devices></mig_devices><bar1_memory_usage><total>N/A</total></bar1_memory_usage></gpu>
</nvidia_smi_log>)");
  REQUIRE(none);
  REQUIRE(none->gpus.size() == 2);
  CHECK(none->gpus[0].mig_devices == 0);
  CHECK(none->gpus[0].mig_pending == "Disabled");
  CHECK(none->gpus[1].mig_devices == 0);
  CHECK_FALSE(none->gpus[1].bar1_total_mib);

  auto q = parse::nvidia_smi_query(realdata("nvidia-smi-q-h100-sxm-560-1.txt"));
  REQUIRE(q);
  CHECK(q->gpus[0].mig_current == "Disabled");
  CHECK(q->gpus[0].mig_pending == "Disabled");
  CHECK_FALSE(q->gpus[0].mig_devices); // the text form lists none
  CHECK(q->gpus[0].bar1_total_mib == 131072);
}

TEST_CASE("parse: nvidia-smi -q -x, hand-made edge cases") {
  const char* two = R"(<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<!-- a comment with <gpu id="bogus"> inside -->
<nvidia_smi_log><driver_version>550.54.15</driver_version><cuda_version>12.4</cuda_version>
<gpu id="00000000:17:00.0"><product_name>Tesla &amp; Co &lt;X&gt;</product_name><uuid>GPU-a</uuid>
<pci><pci_bus_id>00000000:17:00.0</pci_bus_id></pci><fb_memory_usage><total>N/A</total></fb_memory_usage>
<processes /></gpu>
<gpu id='00000000:65:00.0'><product_name>Second</product_name><fb_memory_usage><total>1024 MiB</total>
</fb_memory_usage></gpu></nvidia_smi_log>)";
  auto x = parse::nvidia_smi_xml(two);
  REQUIRE(x);
  CHECK(x->driver_version == "550.54.15");
  REQUIRE(x->gpus.size() == 2);
  CHECK(x->gpus[0].name == "Tesla & Co <X>");
  CHECK(x->gpus[0].bus_id == "00000000:17:00.0");
  CHECK_FALSE(x->gpus[0].memory_total_mib);
  CHECK(x->gpus[1].name == "Second");
  CHECK(x->gpus[1].bus_id == "00000000:65:00.0"); // no <pci>: the id attribute
  CHECK(x->gpus[1].memory_total_mib == 1024);

  // Truncated inside the first GPU: what was read is kept.
  std::string cut = realdata("nvidia-smi-q-x-a10g-1.xml").substr(0, 700);
  auto t = parse::nvidia_smi_xml(cut);
  REQUIRE(t);
  CHECK(t->driver_version == "515.105.01");
  REQUIRE(t->gpus.size() == 1);
  CHECK(t->gpus[0].name == "NVIDIA A10G");
  CHECK(t->gpus[0].bus_id == "00000000:00:1E.0");

  CHECK_FALSE(parse::nvidia_smi_xml(""));
  CHECK_FALSE(parse::nvidia_smi_xml("<html><body>not nvidia</body></html>"));
  CHECK_FALSE(parse::nvidia_smi_xml(realdata("nvidia-smi-fail-no-driver-comm-1.txt")));
}

TEST_CASE("parse: nvidia-smi default table, 535, 550/570 and 590 layouts") {
  auto a = parse::nvidia_smi_table(realdata("nvidia-smi-default-a100-sxm4-40gb-1.txt"));
  REQUIRE(a);
  CHECK(a->driver_version == "550.144.03");
  CHECK(a->cuda_version == "12.4");
  REQUIRE(a->gpus.size() == 1);
  CHECK(a->gpus[0].name == "NVIDIA A100-SXM4-40GB");
  CHECK(a->gpus[0].bus_id == "00000000:81:00.0");
  CHECK(a->gpus[0].memory_total_mib == 40960);

  // 590: "+---+" under the banner and an empty line before Processes; domains 0009..0039 (Grace Hopper).
  auto g = parse::nvidia_smi_table(realdata("nvidia-smi-default-gh200-4gpu-590-1.txt"));
  REQUIRE(g);
  CHECK(g->driver_version == "590.48.01");
  CHECK(g->cuda_version == "13.1");
  REQUIRE(g->gpus.size() == 4);
  const char* gh_bus[] = {"00000009:01:00.0", "00000019:01:00.0", "00000029:01:00.0", "00000039:01:00.0"};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(g->gpus[i].name == "NVIDIA GH200 120GB");
    CHECK(g->gpus[i].bus_id == gh_bus[i]);
    CHECK(g->gpus[i].memory_total_mib == 97871);
  }

  auto h = parse::nvidia_smi_table(realdata("nvidia-smi-default-h200-8gpu-1.txt"));
  REQUIRE(h);
  CHECK(h->driver_version == "570.133.20");
  CHECK(h->cuda_version == "12.8");
  REQUIRE(h->gpus.size() == 8);
  CHECK(h->gpus[0].bus_id == "00000000:8D:00.0");
  CHECK(h->gpus[7].bus_id == "00000000:B7:00.0");
  for (const auto& gpu : h->gpus) {
    CHECK(gpu.name == "NVIDIA H200");
    CHECK(gpu.memory_total_mib == 143771);
    CHECK(gpu.uuid.empty());
  }

  // 535: narrower Bus-Id column, a spacer line of spaces, an empty process table.
  auto r = parse::nvidia_smi_table(realdata("nvidia-smi-default-rtx3090-535-1.txt"));
  REQUIRE(r);
  CHECK(r->driver_version == "535.161.07");
  CHECK(r->cuda_version == "12.2");
  REQUIRE(r->gpus.size() == 1);
  CHECK(r->gpus[0].name == "NVIDIA GeForce RTX 3090");
  CHECK(r->gpus[0].bus_id == "00000000:C1:00.0");
  CHECK(r->gpus[0].memory_total_mib == 24576);
}

TEST_CASE("parse: nvidia-smi table, hand-made 610 banner, Windows row and failures") {
  // Hand-written: the 610 table banner with the renamed CUDA label, and a WDDM row.
  const char* t610 =
      "| NVIDIA-SMI 610.88                 Driver Version: 610.88         CUDA UMD Version: 13.3     |\n"
      "|   0  NVIDIA GeForce RTX 3060 ...  WDDM  |   00000000:01:00.0 Off |                  N/A |\n"
      "| N/A   44C    P8             10W /   80W |     116MiB /   6144MiB |      0%      Default |\n";
  auto t = parse::nvidia_smi_table(t610);
  REQUIRE(t);
  CHECK(t->driver_version == "610.88");
  CHECK(t->cuda_version == "13.3");
  REQUIRE(t->gpus.size() == 1);
  CHECK(t->gpus[0].name == "NVIDIA GeForce RTX 3060 ...");
  CHECK(t->gpus[0].memory_total_mib == 6144);

  CHECK_FALSE(parse::nvidia_smi_table(""));
  CHECK_FALSE(parse::nvidia_smi_table(realdata("nvidia-smi-fail-no-driver-comm-1.txt")));
  CHECK_FALSE(parse::nvidia_smi_table(realdata("nvidia-smi-fail-nvml-mismatch-2.txt")));
}

TEST_CASE("parse: nvidia-smi -q text, 560 and 610 layouts and a poster's excerpt") {
  auto h = parse::nvidia_smi_query(realdata("nvidia-smi-q-h100-sxm-560-1.txt"));
  REQUIRE(h);
  CHECK(h->driver_version == "560.35.03");
  CHECK(h->cuda_version == "12.6");
  REQUIRE(h->gpus.size() == 1);
  CHECK(h->gpus[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(h->gpus[0].bus_id == "00000000:DB:00.0");
  CHECK(h->gpus[0].uuid == "GPU-f7b02328-d6fe-5b1f-9683-15041689bb03");
  CHECK(h->gpus[0].memory_total_mib == 81559);

  // 610: "Driver Version : 610.88 [Deprecated; ...]" next to the new KMD / CUDA UMD keys.
  auto w = parse::nvidia_smi_query(realdata("nvidia-smi-q-rtx3060-laptop-windows-610-1.txt"));
  REQUIRE(w);
  CHECK(w->driver_version == "610.88");
  CHECK(w->cuda_version == "13.3");
  REQUIRE(w->gpus.size() == 1);
  CHECK(w->gpus[0].name == "NVIDIA GeForce RTX 3060 Laptop GPU");
  CHECK(w->gpus[0].bus_id == "00000000:01:00.0");
  CHECK(w->gpus[0].uuid == "GPU-20606811-3bb2-e6b5-ec74-b477d9c1d1d8");
  CHECK(w->gpus[0].memory_total_mib == 6144);

  auto e = parse::nvidia_smi_query(realdata("nvidia-smi-q-excerpt-a100-ecc-row-remap-pending-1.txt"));
  REQUIRE(e);
  CHECK(e->driver_version == "510.73.08");
  CHECK(e->cuda_version == "11.6");
  REQUIRE(e->gpus.size() == 1); // "Attached GPUs : 8", the rest elided with "[...]"
  CHECK(e->gpus[0].name == "NVIDIA A100-SXM4-80GB");
  CHECK_FALSE(e->gpus[0].memory_total_mib);

  // Only the KMD / CUDA UMD keys (after the deprecated ones are removed).
  auto k = parse::nvidia_smi_query("KMD Version  : 620.1\nCUDA UMD Version : 14.0\n");
  REQUIRE(k);
  CHECK(k->driver_version == "620.1");
  CHECK(k->cuda_version == "14.0");

  CHECK_FALSE(parse::nvidia_smi_query(realdata("nvidia-smi-fail-nvml-mismatch-2.txt")));
}

TEST_CASE("parse: nvidia-smi bus id to sysfs BDF") {
  CHECK(parse::bdf_from_nvidia_bus_id("00000000:8D:00.0") == "0000:8d:00.0");
  CHECK(parse::bdf_from_nvidia_bus_id("00000009:01:00.0") == "0009:01:00.0");
  CHECK(parse::bdf_from_nvidia_bus_id("0000:c1:00.0") == "0000:c1:00.0");
  CHECK(parse::bdf_from_nvidia_bus_id("GPU-0000:00:00.0").empty());
  CHECK(parse::bdf_from_nvidia_bus_id("00000000:8D:00:0").empty());
  CHECK(parse::bdf_from_nvidia_bus_id("").empty());
}

TEST_CASE("parse: nvidia-smi -L, GPUs and their MIG devices") {
  auto listed =
      parse::nvidia_smi_list(test::slurp(test::data_path("parse/nvidia-smi-L-a100-2gpu-mig-1.txt")));
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].index == 0);
  CHECK(listed[0].name == "NVIDIA A100-SXM4-40GB");
  CHECK(listed[0].uuid == "GPU-2927d07e-3fe9-7904-9e08-b08b82d9a37d");
  REQUIRE(listed[0].migs.size() == 1);
  CHECK(listed[0].migs[0].profile == "1g.10gb");
  CHECK(listed[0].migs[0].device == 0);
  CHECK(listed[0].migs[0].uuid == "MIG-6e95ef19-5145-571b-b040-7e731f1c1af3");
  CHECK(listed[1].uuid == "GPU-e109d8d9-923e-7235-0429-96b7fdbcbd30");
  REQUIRE(listed[1].migs.size() == 1);
  CHECK(listed[1].migs[0].uuid == "MIG-b4bcd4f3-6f69-516d-9404-b5ada80d760b");

  // The pre-R470 MIG form, a GPU without MIG, CRLF; lines that are not a GPU's are skipped.
  auto old = parse::nvidia_smi_list(
      "GPU 0: A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\r\n"
      "  MIG 3g.20gb Device 0: (UUID: MIG-GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77/1/0)\r\n"
      "GPU 1: Tesla T4 (UUID: GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee)\n"
      "No devices were found\n");
  REQUIRE(old.size() == 2);
  REQUIRE(old[0].migs.size() == 1);
  CHECK(old[0].migs[0].uuid == "MIG-GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77/1/0");
  CHECK(old[1].migs.empty());
  CHECK(old[1].name == "Tesla T4");

  // A UUID with characters no UUID has, a MIG line before any GPU, a GPU line without a UUID: none kept.
  CHECK(parse::nvidia_smi_list("  MIG 1g.5gb Device 0: (UUID: MIG-1)\nGPU 0: X (UUID: GPU-$(reboot))\n"
                               "GPU 1: Y\n")
            .empty());
  CHECK(parse::nvidia_smi_list("").empty());
}

TEST_CASE("parse: nvidia-smi nvlink -s, active and inactive links") {
  auto gpus =
      parse::nvidia_smi_nvlink_status(slurp(data_path("parse/nvidia-smi-nvlink-s-v100-inactive-1.txt")));
  REQUIRE(gpus.size() == 7);
  CHECK(gpus[3].index == 3);
  CHECK(gpus[3].name == "Tesla V100-SXM2-32GB");
  CHECK(gpus[3].uuid == "GPU-50b1bd2e-77ee-2731-fd2f-17c44103b7b9");
  REQUIRE(gpus[3].links.size() == 6);
  CHECK(gpus[3].links[0].active);
  CHECK(gpus[3].links[0].gbps == doctest::Approx(25.781));
  CHECK_FALSE(gpus[3].links[3].active);
  CHECK(gpus[3].links[3].link == 3);
  CHECK(gpus[6].links.size() == 6); // the last line has no newline
  // An H100's header as bottlerocket-os/bottlerocket#4418 shows it; a GPU without NVLink lists no link.
  auto h =
      parse::nvidia_smi_nvlink_status("GPU 0: NVIDIA H100 80GB HBM3 (UUID: "
                                      "GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053)\n\t Link 17: 26.562 GB/s\n"
                                      "GPU 1: NVIDIA L4 (UUID: GPU-00000000-0000-0000-0000-000000000001)\n");
  REQUIRE(h.size() == 2);
  CHECK(h[0].links[0].link == 17);
  CHECK(h[1].links.empty());
  CHECK(parse::nvidia_smi_nvlink_status("Link 0: 25 GB/s\nNVML: Unable to retrieve NVLink information\n")
            .empty());
}

TEST_CASE("nvidia-smi nvlink -e: each link's counters, the older CRC split added up") {
  // The real H100 sample, with its author's "[...]" for the links left out.
  auto gpus = parse::nvidia_smi_nvlink_errors(slurp(data_path("parse/nvidia-smi-nvlink-e-h100-1.txt")));
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0].uuid == "GPU-abcdefab-cdef-abdc-abcd-abababababab");
  REQUIRE(gpus[0].links.size() == 3);
  CHECK(gpus[0].links[2].link == 17);
  for (const auto& l : gpus[0].links) {
    CHECK(l.replay_errors == 0);
    CHECK(l.recovery_errors == 0);
    CHECK(l.crc_errors == 0);
    CHECK_FALSE(l.active);
  }
  // Drivers before R460 print flit and data CRC counts apart ("CRC-Flit" on some); "N/A" leaves a count
  // unset; a count past 2^52 or negative is no count.
  auto old = parse::nvidia_smi_nvlink_errors(
      "GPU 0: Tesla V100-SXM2-16GB (UUID: GPU-1)\n\t Link 0: Replay Errors: 3\n\t Link 0: Recovery Errors: "
      "N/A\n\t Link 0: CRC Flit Errors: 5\n\t Link 0: CRC-Data Errors: 2\n\t Link 1: Replay Errors: -4\n"
      "\t Link 1: CRC Errors: 99999999999999999\n\t Link 1: Bandwidth: 7\n");
  REQUIRE(old.size() == 1);
  REQUIRE(old[0].links.size() == 2);
  CHECK(old[0].links[0].replay_errors == 3);
  CHECK_FALSE(old[0].links[0].recovery_errors);
  CHECK(old[0].links[0].crc_errors == 7);
  CHECK_FALSE(old[0].links[1].replay_errors);
  CHECK_FALSE(old[0].links[1].crc_errors);
  CHECK(parse::nvidia_smi_nvlink_errors("Link 0: Replay Errors: 1\n").empty());
}
