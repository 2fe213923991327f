// gpu.none, gpu.unknown-model, driver.not-bound, driver.nouveau, driver.nvidia-mismatch, driver.kfd-missing,
// driver.amdgpu-params
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("check: gpu.none is info without a GPU and passes with one") {
  SUBCASE("no GPU on the bus") {
    Facts f;
    auto r = single(run_check("gpu.none", f));
    expect_fired(r, Status::info, "", {"No NVIDIA or AMD GPU"}, {});
    CHECK(contains(r.evidence.front(), "0x10de"));
  }
  SUBCASE("two GPUs") {
    Facts f = nvidia_machine(2);
    auto r = single(run_check("gpu.none", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "2 GPUs"));
    CHECK(r.evidence.size() == 2);
  }
  SUBCASE("one GPU of each vendor counts both") {
    Facts f = amd_machine();
    f.gpus.push_back(make_nvidia_gpu(1));
    auto r = single(run_check("gpu.none", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "2 GPUs"));
  }
}

TEST_CASE("check: gpu.unknown-model names the PCI id and the pci.ids name") {
  SUBCASE("unknown NVIDIA device id") {
    Facts f = nvidia_machine(1);
    f.gpus[0].device_id = 0x2999;
    f.gpus[0].model.reset();
    f.gpus[0].pci_ids_name = "GB999 [Future GPU]";
    auto r = single(run_check("gpu.unknown-model", f));
    expect_fired(r, Status::info, f.gpus[0].subject(), {"GB999 [Future GPU]", "knowledge tables"}, {});
    CHECK(contains(r.evidence.front(), "10de:2999"));
  }
  SUBCASE("unknown without a pci.ids name still says which GPU") {
    Facts f = amd_machine({100301});
    f.gpus[0].device_id = 0x7fff; // an id no table knows
    f.gpus[0].model.reset();
    f.gpus[0].pci_ids_name.reset();
    auto r = single(run_check("gpu.unknown-model", f));
    expect_fired(r, Status::info, f.gpus[0].subject(), {"knowledge tables"}, {});
    CHECK(contains(r.evidence.front(), "1002:7fff"));
    CHECK(contains(r.evidence.front(), "rev c1"));
  }
  SUBCASE("known models pass, one result per GPU") {
    Facts f = amd_machine({110000, 120001});
    auto results = run_check("gpu.unknown-model", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, f.gpus[0].subject());
    CHECK(contains(results[0].message, "Radeon RX 7900 XTX"));
    CHECK(contains(results[0].message, "gfx1100"));
    expect_quiet(results[1], Status::pass, f.gpus[1].subject());
    CHECK(contains(results[1].message, "gfx1201"));
  }
  SUBCASE("no GPU: skip") {
    expect_quiet(single(run_check("gpu.unknown-model", Facts{})), Status::skip);
  }
}

TEST_CASE("check: driver.not-bound fires per unbound GPU with the vendor's install fix") {
  SUBCASE("NVIDIA GPU without a driver") {
    Facts f;
    f.gpus.push_back(make_nvidia_gpu(0, 0x2684, ""));
    auto r = single(run_check("driver.not-bound", f));
    expect_fired(r, Status::error, f.gpus[0].subject(),
                 {"GeForce RTX 4090", "no kernel driver", "NVIDIA driver"}, {"install-nvidia"});
    CHECK(contains(r.evidence.back(), f.gpus[0].bdf + "/driver: missing"));
  }
  SUBCASE("AMD GPU without a driver") {
    Facts f = amd_machine();
    f.gpus[0].driver = {};
    auto r = single(run_check("driver.not-bound", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"Radeon RX 7900 XTX", "amdgpu"}, {"install-rocm"});
  }
  SUBCASE("one bound, one not: one error, one pass") {
    Facts f = nvidia_machine(2);
    f.gpus[1].driver = {};
    auto results = run_check("driver.not-bound", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, f.gpus[0].subject());
    CHECK(contains(results[0].message, "nvidia"));
    CHECK(results[1].status == Status::error);
    CHECK(results[1].subject == f.gpus[1].subject());
  }
  SUBCASE("vfio-pci counts as bound (passthrough is deliberate)") {
    Facts f = amd_machine();
    f.gpus[0].driver = {"vfio-pci", f.gpus[0].source + "/driver"};
    expect_quiet(single(run_check("driver.not-bound", f)), Status::pass, f.gpus[0].subject());
  }
  SUBCASE("no GPU: skip") {
    expect_quiet(single(run_check("driver.not-bound", Facts{})), Status::skip);
  }
}

TEST_CASE("check: driver.nouveau fires when nouveau holds or will hold the GPU") {
  SUBCASE("nouveau bound to the GPU") {
    Facts f = nvidia_machine(1, "");
    f.gpus[0].driver = {"nouveau", f.gpus[0].source + "/driver"};
    f.modules.loaded["nouveau"] = "";
    auto r = single(run_check("driver.nouveau", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"nouveau", "NVIDIA driver"}, {"blacklist-nouveau"});
    CHECK(contains(r.evidence.back(), "/driver"));
  }
  SUBCASE("nouveau loaded, GPU unbound, no NVIDIA module") {
    Facts f = nvidia_machine(1, "");
    f.gpus[0].driver = {};
    f.modules.loaded["nouveau"] = "";
    auto r = single(run_check("driver.nouveau", f));
    expect_fired(r, Status::error, "", {"nouveau"}, {"blacklist-nouveau"});
    CHECK(r.evidence.front() == "/proc/modules: nouveau");
  }
  SUBCASE("nouveau loaded beside a working NVIDIA driver: pass") {
    Facts f = nvidia_machine(1);
    f.modules.loaded["nouveau"] = "";
    auto r = single(run_check("driver.nouveau", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "owns no NVIDIA GPU"));
  }
  SUBCASE("no nouveau: pass") {
    expect_quiet(single(run_check("driver.nouveau", nvidia_machine(1))), Status::pass);
  }
  SUBCASE("AMD only: skip") {
    expect_quiet(single(run_check("driver.nouveau", amd_machine())), Status::skip);
  }
}

TEST_CASE("check: driver.nvidia-mismatch from nvidia-smi's failure") {
  Facts f = nvidia_machine(1, "550.90.07");
  f.nvidia.smi_driver_version = {};
  f.nvidia.smi_mismatch = true;
  SUBCASE("module and NVML versions known") {
    f.nvidia.nvml_library_version = {"550.120", "cmd nvidia-smi-xml"};
    auto r = single(run_check("driver.nvidia-mismatch", f));
    expect_fired(r, Status::error, "", {"550.90.07", "550.120", "Reboot"}, {"reboot"});
    CHECK(contains(r.evidence.front(), "Driver/library version mismatch"));
    CHECK(r.evidence.size() == 3);
  }
  SUBCASE("module unknown: the NVML version alone") {
    f.nvidia.kernel_module_version = {};
    f.modules.loaded.clear();
    f.nvidia.nvml_library_version = {"570.86.15", "cmd nvidia-smi-xml"};
    auto r = single(run_check("driver.nvidia-mismatch", f));
    expect_fired(r, Status::error, "", {"NVML library 570.86.15"}, {"reboot"});
  }
  SUBCASE("no versions at all: still an error on the message alone") {
    f.nvidia.kernel_module_version = {};
    auto r = single(run_check("driver.nvidia-mismatch", f));
    expect_fired(r, Status::error, "", {"different versions"}, {"reboot"});
  }
}

TEST_CASE("check: driver.nvidia-mismatch from versions that differ") {
  SUBCASE("nvidia-smi's driver differs from the module") {
    Facts f = nvidia_machine(1, "535.183.01");
    f.nvidia.smi_driver_version = {"535.216.01", "cmd nvidia-smi-xml"};
    auto r = single(run_check("driver.nvidia-mismatch", f));
    expect_fired(r, Status::error, "", {"535.216.01", "535.183.01"}, {"reboot"});
    CHECK(r.evidence.size() == 2);
    CHECK(contains(r.evidence[0], "/proc/driver/nvidia/version"));
    CHECK(contains(r.evidence[1], "nvidia-smi"));
  }
  SUBCASE("the installed library packages are newer than the module") {
    Facts f = nvidia_machine(1, "550.90.07");
    f.nvidia.smi_driver_version = {};
    f.packages.readable = true;
    f.packages.source = "/var/lib/dpkg/status";
    f.nvidia.libnvidia_ml_versions = {"550.127.05"};
    auto r = single(run_check("driver.nvidia-mismatch", f));
    expect_fired(r, Status::error, "", {"550.127.05", "550.90.07", "version mismatch"}, {"reboot"});
    CHECK(contains(r.evidence.back(), "/var/lib/dpkg/status"));
  }
  SUBCASE("module, nvidia-smi and packages agree: pass") {
    Facts f = nvidia_machine(1, "550.90.07");
    f.nvidia.libnvidia_ml_versions = {"550.90.07"};
    auto r = single(run_check("driver.nvidia-mismatch", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "550.90.07"));
  }
  SUBCASE("no NVIDIA module: skip") {
    expect_quiet(single(run_check("driver.nvidia-mismatch", amd_machine())), Status::skip);
  }
}

TEST_CASE("check: driver.kfd-missing per AMD GPU bound to amdgpu") {
  SUBCASE("KFD present and the GPU has its node: pass") {
    Facts f = amd_machine({110000, 100300});
    auto results = run_check("driver.kfd-missing", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, f.gpus[0].subject());
    CHECK(contains(results[0].message, "KFD node 1"));
    expect_quiet(results[1], Status::pass, f.gpus[1].subject());
    CHECK(contains(results[1].message, "KFD node 2"));
  }
  SUBCASE("no /dev/kfd") {
    Facts f = amd_machine();
    f.amd.kfd_device = false;
    auto r = single(run_check("driver.kfd-missing", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"/dev/kfd does not exist"}, {"install-rocm"});
    CHECK(r.evidence.back() == "/dev/kfd: missing");
  }
  SUBCASE("no topology") {
    Facts f = amd_machine();
    f.amd.kfd_topology = false;
    auto r = single(run_check("driver.kfd-missing", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"KFD topology is missing"}, {"install-rocm"});
  }
  SUBCASE("the KFD skipped this GPU (no PCIe atomics)") {
    Facts f = amd_machine({110000, 110000});
    f.gpus[1].kfd.reset();
    auto results = run_check("driver.kfd-missing", f);
    REQUIRE(results.size() == 2);
    CHECK(results[0].status == Status::pass);
    expect_fired(results[1], Status::error, f.gpus[1].subject(), {"no KFD topology node", "atomics"},
                 {"install-rocm"});
    CHECK(contains(results[1].evidence.back(), f.gpus[1].bdf));
  }
  SUBCASE("AMD GPU on vfio-pci and NVIDIA only: skip") {
    Facts f = amd_machine();
    f.gpus[0].driver = {"vfio-pci", "x"};
    expect_quiet(single(run_check("driver.kfd-missing", f)), Status::skip);
    expect_quiet(single(run_check("driver.kfd-missing", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: driver.amdgpu-params") {
  auto with_cmdline = [](Facts f, const std::string& line) {
    f.os.kernel_cmdline = {line, "/proc/cmdline"};
    return f;
  };
  auto params = [](Facts& f, std::map<std::string, std::string> values) {
    f.amd.amdgpu_params = std::move(values);
    f.amd.amdgpu_params_source = "/sys/module/amdgpu/parameters";
  };
  SUBCASE("gpu_recovery=0 on the command line: warn, saying where, with the remedy") {
    Facts f = with_cmdline(amd_machine(), "BOOT_IMAGE=/vmlinuz ro amdgpu.gpu_recovery=0");
    params(f, {{"gpu_recovery", "0"}, {"cwsr_enable", "1"}});
    auto results = run_check("driver.amdgpu-params", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[0], Status::warn, "amdgpu.gpu_recovery",
                 {"amdgpu.gpu_recovery=0, set on the kernel command line",
                  "stays wedged until the machine reboots", "The default (-1) means recovery on"},
                 {});
    REQUIRE(results[0].action);
    CHECK(contains(results[0].action->text, "Remove amdgpu.gpu_recovery=0 from the kernel command line"));
    expect_quiet(results[1], Status::pass, "amdgpu.cwsr_enable");
  }
  SUBCASE("a value the module holds that no command line gave: /etc/modprobe.d or the initramfs") {
    Facts f = with_cmdline(amd_machine(), "BOOT_IMAGE=/vmlinuz ro");
    params(f, {{"ras_enable", "0"}});
    auto r = single(run_check("driver.amdgpu-params", f));
    expect_fired(r, Status::warn, "amdgpu.ras_enable",
                 {"an options line of /etc/modprobe.d", "ECC itself off"}, {});
    CHECK(contains(r.action->text, "update-initramfs"));
  }
  SUBCASE("lockup_timeout: any negative element of its list is infinite") {
    for (const char* v : {"-1", "10000,-1,10000,10000"}) {
      Facts f = amd_machine();
      params(f, {{"lockup_timeout", v}});
      CHECK(single(run_check("driver.amdgpu-params", f)).status == Status::warn);
    }
    for (const char* v : {"", "10000", "10000,60000,10000,10000", "0"}) {
      Facts f = amd_machine();
      params(f, {{"lockup_timeout", v}});
      CHECK(single(run_check("driver.amdgpu-params", f)).status == Status::pass);
    }
  }
  SUBCASE("the default's auto resolved by the driver's rule for the GPU's family") {
    Facts cyan = amd_machine({100103}); // gfx1013 (Cyan Skillfish): recovery off by default
    params(cyan, {{"gpu_recovery", "-1"}});
    CHECK(contains(single(run_check("driver.amdgpu-params", cyan)).message,
                   "recovery off on this GPU's family"));
    Facts navi = amd_machine({110000});
    params(navi, {{"gpu_recovery", "-1"}});
    CHECK(contains(single(run_check("driver.amdgpu-params", navi)).message, "the default: recovery on"));
  }
  SUBCASE("module not loaded: the command line says what it will get") {
    Facts f = with_cmdline(amd_machine(), "ro amdgpu.sched-policy=2");
    auto r = single(run_check("driver.amdgpu-params", f));
    expect_fired(r, Status::warn, "amdgpu.sched_policy", {"debugging only"}, {});
    REQUIRE(r.evidence.size() == 1);
    CHECK(r.evidence[0] == "/proc/cmdline: amdgpu.sched_policy=2");
  }
  SUBCASE("nothing to read, a container (the host's module), no AMD GPU: skip") {
    CHECK(single(run_check("driver.amdgpu-params", amd_machine())).status == Status::skip);
    Facts inside = amd_machine();
    params(inside, {{"gpu_recovery", "0"}});
    inside.os.in_container = true;
    CHECK(single(run_check("driver.amdgpu-params", inside)).status == Status::skip);
    CHECK(single(run_check("driver.amdgpu-params", nvidia_machine())).status == Status::skip);
  }
}

TEST_CASE("check: gpu.mig, MIG without devices, a pending change, and how CUDA sees MIG devices") {
  auto mig = [](const std::string& current, const std::string& pending, std::optional<int> devices) {
    Facts f = nvidia_machine(1, "535.54.03");
    f.nvidia.smi_gpus[0].mig_current = current;
    f.nvidia.smi_gpus[0].mig_pending = pending;
    f.nvidia.smi_gpus[0].mig_devices = devices;
    return f;
  };
  SUBCASE("on with no MIG device: error, never changed by gpudoctor") {
    Facts f = mig("Enabled", "Enabled", 0);
    auto r = single(run_check("gpu.mig", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"no MIG device", "CUDA sees no device", "-mig 0"},
                 {});
    CHECK(contains(r.evidence[0], "MIG mode current Enabled, pending Enabled"));
  }
  SUBCASE("a pending change waits for a GPU reset: warn") {
    auto r = single(run_check("gpu.mig", mig("Disabled", "Enabled", 0)));
    CHECK(r.status == Status::warn);
    CHECK(contains(r.message, "--gpu-reset"));
    CHECK(contains(r.message, "MIG mode is off"));
  }
  SUBCASE("on with devices, off, or not reported: no finding") {
    auto on = single(run_check("gpu.mig", mig("Enabled", "Enabled", 4)));
    CHECK(on.status == Status::pass);
    CHECK(contains(on.message, "MIG UUID"));
    CHECK(single(run_check("gpu.mig", mig("Disabled", "Disabled", 0))).status == Status::pass);
    CHECK(single(run_check("gpu.mig", mig("Enabled", "Enabled", std::nullopt))).status == Status::skip);
    CHECK(single(run_check("gpu.mig", mig("", "", 0))).status == Status::skip);
  }
}

TEST_CASE("check: gpu.bar-small, a BAR1 below the GPU's memory where GPUDirect RDMA maps through it") {
  auto machine = [](std::optional<long long> bar, bool rdma) {
    Facts f = nvidia_machine(1, "580.95.05");
    f.nvidia.smi_gpus[0].name = "Tesla T4";
    f.nvidia.smi_gpus[0].memory_total_mib = 15360;
    f.nvidia.smi_gpus[0].bar1_total_mib = bar;
    f.network.ib_source = "/sys/class/infiniband";
    if (rdma) f.network.ib_devices = {"mlx5_0"};
    return f;
  };
  SUBCASE("256 MiB with an RDMA device: warn, with the firmware step") {
    Facts f = machine(256, true);
    auto r = single(run_check("gpu.bar-small", f));
    expect_fired(r, Status::warn, f.gpus[0].subject(), {"256 MiB of its 15 GiB", "mlx5_0", "Resizable BAR"},
                 {});
    REQUIRE(r.action);
    CHECK(contains(r.action->text, "Re-Size BAR"));
  }
  SUBCASE("256 MiB without RDMA, a large BAR1, or none reported: no finding") {
    CHECK(single(run_check("gpu.bar-small", machine(256, false))).status == Status::pass);
    CHECK(single(run_check("gpu.bar-small", machine(32768, true))).status == Status::pass);
    CHECK(single(run_check("gpu.bar-small", machine(std::nullopt, true))).status ==
          Status::skip); // GH200: N/A
  }
}

TEST_CASE("check: gpu.nvlink-down, a link down while NVLink is in use") {
  auto machine = [](std::vector<std::vector<bool>> links) {
    Facts f = nvidia_machine(static_cast<int>(links.size()), "580.95.05");
    f.nvidia.nvlink_read = true;
    for (std::size_t i = 0; i < links.size(); ++i) {
      NvlinkGpu g;
      g.index = static_cast<int>(i);
      g.name = "Tesla V100-SXM2-32GB";
      g.uuid = f.nvidia.smi_gpus[i].uuid;
      for (std::size_t l = 0; l < links[i].size(); ++l)
        g.links.push_back(
            {static_cast<int>(l), links[i][l], links[i][l] ? std::optional<double>(25.781) : std::nullopt});
      f.nvidia.nvlink.push_back(g);
    }
    return f;
  };
  SUBCASE("one GPU with two links down beside active ones: error on that GPU, with the reset step") {
    Facts f = machine({{true, true, true}, {true, false, false}});
    auto results = run_check("gpu.nvlink-down", f);
    REQUIRE(results.size() == 2);
    CHECK(results[0].status == Status::pass);
    expect_fired(results[1], Status::error, f.gpus[1].subject(), {"links 1, 2", "2 of its 3 links"}, {});
    REQUIRE(results[1].action);
    CHECK(contains(results[1].action->text, "nvidia-smi -r -i 1"));
  }
  SUBCASE("a GPU whose links are all down while the others are up is down too") {
    CHECK(run_check("gpu.nvlink-down", machine({{true, true}, {false, false}}))[1].status == Status::error);
  }
  SUBCASE("no active link anywhere (PCIe cards without a bridge), or MIG mode: no finding") {
    for (const auto& r : run_check("gpu.nvlink-down", machine({{false, false}, {false, false}})))
      CHECK(r.status == Status::pass);
    Facts mig = machine({{true, true}, {false, false}});
    mig.nvidia.smi_gpus[1].mig_current = "Enabled";
    CHECK(run_check("gpu.nvlink-down", mig)[1].status == Status::skip);
  }
  SUBCASE("not asked: skip") {
    expect_quiet(single(run_check("gpu.nvlink-down", nvidia_machine(1))), Status::skip);
  }
}
