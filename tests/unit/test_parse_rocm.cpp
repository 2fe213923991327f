#include "parse/parsers.hpp"
#include "unit/test_parse_util.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;

namespace {

struct AgentRow {
  const char *name, *marketing, *type;
  std::optional<int> node;
};

void check_agents(const parse::Rocminfo& r, const std::vector<AgentRow>& want) {
  REQUIRE(r.agents.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(r.agents[i].name == want[i].name);
    CHECK(r.agents[i].marketing_name == want[i].marketing);
    CHECK(r.agents[i].device_type == want[i].type);
    CHECK(r.agents[i].node == want[i].node);
  }
}

} // namespace

TEST_CASE("parse: rocminfo, discrete GPU plus the Ryzen iGPU, stray trailing backtick") {
  auto r = parse::rocminfo(realdata("rocminfo-gfx1030-rx6800xt-igpu-gfx1036-1.txt"));
  CHECK(r.ok);
  CHECK(r.rock_module_loaded == true);
  CHECK(r.rock_module_version.empty());
  CHECK(r.runtime_version == "1.1");
  // Names are padded with trailing spaces to rocminfo's column; ISA "amdgcn-amd-amdhsa--gfx1030" is no agent.
  check_agents(r, {{"AMD Ryzen 7 7700X 8-Core Processor", "AMD Ryzen 7 7700X 8-Core Processor", "CPU", 0},
                   {"gfx1030", "AMD Radeon RX 6800 XT", "GPU", 1},
                   {"gfx1036", "AMD Radeon Graphics", "GPU", 2}});
}

TEST_CASE("parse: rocminfo, complete outputs") {
  auto wsl = parse::rocminfo(realdata("rocminfo-gfx1030-rx6800xt-wsl-1.txt"));
  CHECK(wsl.ok);
  CHECK_FALSE(wsl.rock_module_loaded); // WSL prints no "ROCk module" line at all
  CHECK(wsl.runtime_version == "1.1");
  check_agents(wsl, {{"CPU", "CPU", "CPU", 0}, {"gfx1030", "AMD Radeon RX 6800 XT", "GPU", 1}});

  auto xtx = parse::rocminfo(realdata("rocminfo-gfx1100-rx7900xtx-1.txt"));
  CHECK(xtx.ok);
  CHECK(xtx.rock_module_loaded == true);
  CHECK(xtx.runtime_version == "1.1");
  check_agents(
      xtx, {{"AMD Ryzen 5 5500", "AMD Ryzen 5 5500", "CPU", 0}, {"gfx1100", "Radeon RX 7900 XTX", "GPU", 1}});

  auto r9700 = parse::rocminfo(realdata("rocminfo-gfx1201-r9700-1.txt"));
  CHECK(r9700.ok);
  CHECK(r9700.rock_module_loaded == true);
  CHECK(r9700.rock_module_version == "6.16.6");
  CHECK(r9700.runtime_version == "1.18");
  check_agents(r9700, {{"AMD Ryzen Threadripper 3960X 24-Core Processor",
                        "AMD Ryzen Threadripper 3960X 24-Core Processor", "CPU", 0},
                       {"gfx1201", "AMD Radeon AI PRO R9700", "GPU", 1}});

  auto vf = parse::rocminfo(realdata("rocminfo-gfx942-mi300x-vf-1.txt"));
  CHECK(vf.ok);
  CHECK(vf.rock_module_version == "6.16.13");
  CHECK(vf.runtime_version == "1.18");
  check_agents(vf, {{"INTEL(R) XEON(R) PLATINUM 8568Y+", "INTEL(R) XEON(R) PLATINUM 8568Y+", "CPU", 0},
                    {"gfx942", "AMD Instinct MI300X VF", "GPU", 1}});
}

TEST_CASE("parse: rocminfo, outputs elided or truncated by their posters") {
  // "..." lines; the paste stops after the GPU's Vendor Name, before Node and Device Type.
  auto apu = parse::rocminfo(realdata("rocminfo-gfx1103-780m-apu-poster-elided-1.txt"));
  CHECK(apu.ok);
  CHECK(apu.runtime_version == "1.15");
  check_agents(apu, {{"AMD Ryzen 7 8840U w/ Radeon 780M Graphics",
                      "AMD Ryzen 7 8840U w/ Radeon 780M Graphics", "", std::nullopt},
                     {"gfx1103", "AMD Radeon Graphics", "GPU", std::nullopt}});

  // "[...]" replaced everything from the CPU's ISA Info up to the first GPU's Name, "Agent 2" header
  // included.
  auto mi300 = parse::rocminfo(realdata("rocminfo-gfx942-mi300x-snippet-1.txt"));
  CHECK(mi300.ok);
  CHECK(mi300.rock_module_loaded == true);
  check_agents(mi300, {{"AMD EPYC 9534 64-Core Processor", "AMD EPYC 9534 64-Core Processor", "CPU", 0},
                       {"gfx942", "AMD Instinct MI300X", "GPU", 2}});
}

TEST_CASE("parse: rocminfo failures list no agents") {
  // The failure lines are knowledge tool_errors.yaml's (test_collect_tool_errors.cpp).
  auto perm = parse::rocminfo(realdata("rocminfo-fail-kfd-permission-denied-not-in-render-1.txt"));
  CHECK_FALSE(perm.ok);
  CHECK(perm.rock_module_loaded == true);
  CHECK(perm.agents.empty());
  for (const char* name :
       {"rocminfo-fail-rock-not-loaded-no-kfd-1.txt", "rocminfo-fail-rock-not-loaded-wsl2-1.txt"}) {
    auto failed = parse::rocminfo(realdata(name));
    CHECK_FALSE(failed.ok);
    CHECK(failed.rock_module_loaded == false);
  }
  auto empty = parse::rocminfo("");
  CHECK_FALSE(empty.ok);
  CHECK_FALSE(empty.rock_module_loaded);
}

TEST_CASE("parse: KFD topology node properties") {
  auto cpu = parse::kfd_node_properties(realdata("kfd-properties-cpu-node-1.txt"), 0);
  CHECK(cpu.node_id == 0);
  CHECK(cpu.vendor_id == 0);
  CHECK(cpu.device_id == 0);
  CHECK(cpu.simd_count == 0);
  CHECK(cpu.drm_render_minor == 0);
  CHECK_FALSE(cpu.gfx_target_version);
  CHECK_FALSE(cpu.local_mem_size);

  // Older kernel: no gfx_target_version, domain, num_xcc or hive_id lines.
  auto vega = parse::kfd_node_properties(realdata("kfd-properties-gfx900-vega10-no-gfx-target-1.txt"), 1);
  CHECK(vega.node_id == 1);
  CHECK_FALSE(vega.gfx_target_version);
  CHECK_FALSE(vega.domain);
  CHECK(vega.vendor_id == 0x1002);
  CHECK(vega.device_id == 0x6860);
  CHECK(vega.location_id == 6400);
  CHECK(vega.drm_render_minor == 128);
  CHECK(vega.simd_count == 256);
  CHECK(vega.local_mem_size == 17163091968LL);

  struct Row {
    const char* file;
    long long gfx, device, location, simd;
  };
  const Row rows[] = {
      {"kfd-properties-gfx90a-mi210-1.txt", 90010, 0x740f, 25344, 416},
      {"kfd-properties-gfx942-mi300x-cpx-partition-1.txt", 90402, 0x74a1, 1280, 152},
      {"kfd-properties-gfx942-mi308x-1.txt", 90402, 0x74a2, 2560, 80},
  };
  for (const auto& r : rows) {
    CAPTURE(r.file);
    auto n = parse::kfd_node_properties(realdata(r.file), 2);
    CHECK(n.node_id == 2);
    CHECK(n.gfx_target_version == r.gfx);
    CHECK(n.vendor_id == 0x1002);
    CHECK(n.device_id == r.device);
    CHECK(n.location_id == r.location);
    CHECK(n.domain == 0);
    CHECK(n.drm_render_minor == 128);
    CHECK(n.simd_count == r.simd);
    CHECK(n.local_mem_size == 0); // as in the samples: 0, not the VRAM size
  }

  auto junk = parse::kfd_node_properties("gfx_target_version abc\nvendor_id\n\ndevice_id 0x74a1\n", 3);
  CHECK_FALSE(junk.gfx_target_version);
  CHECK_FALSE(junk.vendor_id);
  CHECK_FALSE(junk.device_id); // sysfs prints decimal; "0x" is not read as hex
}

TEST_CASE("parse: ROCm .info/version") {
  CHECK(parse::rocm_info_version(realdata("opt-rocm-info-version-1.txt")) == "7.0.1");
  CHECK(parse::rocm_info_version("6.2.0-115\n") == "6.2.0");
  CHECK(parse::rocm_info_version("  5.7.1  \r\nsecond line\n") == "5.7.1");
  CHECK_FALSE(parse::rocm_info_version(""));
  CHECK_FALSE(parse::rocm_info_version("\n7.0.1\n"));
  CHECK_FALSE(parse::rocm_info_version("rocm-7.0.1"));
}
