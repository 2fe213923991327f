// The probes' JSON lines (docs/probes.md) into probe facts: real outputs of this project's probe programs
// without a device, every event of a healthy run, garbage, and PCI bus ids in the runtimes' spellings.
#include "probe/probe_parse.hpp"
#include "unit/test_parse_util.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// A file of tests/data/probe: probe lines as the probe programs print them.
std::string data(const std::string& name) {
  std::string text = test::slurp(test::data_path("probe/" + name));
  REQUIRE_MESSAGE(!text.empty(), "no test data " << name);
  return text;
}

ProbeRun run_of(const std::string& name) {
  ProbeRun r;
  r.name = name;
  r.key = "probe-" + name + "@cuda";
  r.run = r.found = true;
  r.exit_code = 0;
  return r;
}

} // namespace

TEST_CASE("probe parse: the CUDA devices probe on a machine without a driver (real output)") {
  const std::string out = data("cuda-devices-no-driver.jsonl");
  BackendProbes b;
  b.backend = "cuda";
  ProbeRun run = run_of("devices");
  probe::read_probe_output(out, run, b);
  CHECK(run.ended);
  CHECK(run.completed());
  CHECK(run.bad_lines == 0);
  REQUIRE(run.errors.size() == 1);
  CHECK(run.errors[0].call == "cudaGetDeviceCount");
  CHECK(run.errors[0].code == 35);
  REQUIRE(b.count_error.has_value());
  CHECK(b.count_error->name == "cudaErrorInsufficientDriver");
  CHECK_FALSE(b.device_count.has_value());
  CHECK(b.driver_version == 0);
  CHECK(b.runtime_version == 13000);
  CHECK(b.targets == "sm_75 sm_90 compute_121");
  CHECK_FALSE(b.runtime_too_new()); // no driver at all: not a version problem
}

TEST_CASE("probe parse: a healthy run of every probe") {
  BackendProbes b;
  b.backend = "cuda";
  std::vector<std::pair<std::string, std::string>> outputs = {
      {"devices", data("healthy-devices.jsonl")},
      {"kernel", data("healthy-kernel.jsonl")},
      {"memory-bandwidth", data("healthy-memory-bandwidth.jsonl")},
      {"host-bandwidth", data("healthy-host-bandwidth.jsonl")},
      {"p2p", data("healthy-p2p.jsonl")},
      {"alloc", data("healthy-alloc.jsonl")}};
  std::vector<ProbeRun> runs;
  for (const auto& [name, text] : outputs) {
    ProbeRun run = run_of(name);
    probe::read_probe_output(text, run, b);
    CHECK_MESSAGE(run.bad_lines == 0, name);
    runs.push_back(run);
  }
  CHECK(b.device_count == 2);
  REQUIRE(b.devices.size() == 2);
  CHECK(b.devices[0].pci_bus_id == "0000:19:00.0");
  CHECK(b.devices[1].pci_bus_id == "0000:3b:00.0");
  CHECK(b.devices[0].l2_bytes == 62914560u);
  REQUIRE(b.devices[0].peak_gbps().has_value());
  CHECK(*b.devices[0].peak_gbps() == doctest::Approx(4917.1).epsilon(0.001));
  CHECK_FALSE(b.devices[1].peak_gbps().has_value()); // no memory clock
  REQUIRE(b.kernels.size() == 2);
  CHECK(b.kernels[0].ok);
  CHECK_FALSE(b.kernels[1].ok);
  CHECK(b.kernels[1].stage == "image");
  REQUIRE(b.kernels[1].error.has_value());
  CHECK(b.kernels[1].error->name == "cudaErrorNoKernelImageForDevice");
  REQUIRE(b.memory.size() == 1);
  CHECK(b.memory[0].best_gbps == doctest::Approx(4310.0));
  CHECK(b.memory[0].verified);
  CHECK(runs[2].notes == std::vector<std::string>{"device 1: too little free memory"});
  REQUIRE(b.host.size() == 1);
  CHECK(b.host[0].test == "h2d");
  REQUIRE(b.peers.size() == 1);
  CHECK(b.peers[0].can_access);
  REQUIRE(b.p2p.size() == 1);
  CHECK(b.p2p[0].device == 0);
  CHECK(b.p2p[0].peer == 1);
  REQUIRE(b.allocs.size() == 1);
  CHECK(b.allocs[0].largest_single_bytes == 142195294208ull);
  CHECK(b.allocs[0].single_error == "cudaErrorMemoryAllocation");
  CHECK(runs[0].ended);
  CHECK_FALSE(runs[3].ended); // no end line: the process stopped early
}

TEST_CASE("probe parse: lines of another probe, non-JSON and truncated lines are counted, not trusted") {
  BackendProbes b;
  ProbeRun run = run_of("kernel");
  probe::read_probe_output(
      "Segmentation fault\n{\"probe\":\"alloc\",\"event\":\"end\"}\n{\"probe\":\"kernel\",\"ev", run, b);
  CHECK(run.bad_lines == 3);
  CHECK_FALSE(run.ended);
  CHECK(b.kernels.empty());
  CHECK(run.crashed()); // exit 0 without an end line
}

TEST_CASE("probe parse: the framework probe") {
  FrameworkProbe fw;
  probe::read_framework_output(data("framework-cuda.jsonl"), fw);
  CHECK(fw.imported);
  CHECK(fw.version == "2.5.1+cu124");
  CHECK(fw.cuda == "12.4");
  CHECK_FALSE(fw.hip.has_value());
  CHECK(fw.backend == "cuda");
  CHECK(fw.available == true);
  CHECK(fw.arch_list == std::vector<std::string>{"sm_80", "sm_90"});
  CHECK(fw.warnings == std::vector<std::string>{"slow"});
  REQUIRE(fw.devices.size() == 1);
  CHECK_FALSE(fw.devices[0].op_ok);
  CHECK(fw.devices[0].pci_bus_id == "0000:19:00.0");
  CHECK(fw.run.ended);
}

TEST_CASE("probe parse: PCI bus ids as runtimes and sysfs spell them") {
  CHECK(probe::normalise_bus_id("00000000:19:00.0") == "0000:19:00.0");
  CHECK(probe::normalise_bus_id("0000:3B:00.0") == "0000:3b:00.0");
  CHECK(probe::normalise_bus_id("0001:c1:1f.7") == "0001:c1:1f.7");
  CHECK(probe::normalise_bus_id("19:00.0") == "0000:19:00.0");
  CHECK(probe::normalise_bus_id(" 0000:03:00.0\n") == "0000:03:00.0");
  CHECK(probe::normalise_bus_id("0000:03:00") == "");
  CHECK(probe::normalise_bus_id("0000:03:20.0") == ""); // device is 5 bits
  CHECK(probe::normalise_bus_id("GPU-1234") == "");
  CHECK(probe::normalise_bus_id("") == "");
}

TEST_CASE("probe facts: runtime versions in words") {
  CHECK(runtime_version_text(13000) == "CUDA 13.0");
  CHECK(runtime_version_text(12040) == "CUDA 12.4");
  CHECK(runtime_version_text(50221153) == "HIP 5.2");
  CHECK(runtime_version_text(60032830) == "HIP 6.0");
  CHECK(runtime_version_text(0) == "none");
  CHECK(runtime_version_text(std::nullopt) == "none");
}
