// env.rccl-fine-grain, env.hsa-override-unneeded, env.visible-devices-foreign, gpu.xgmi-links
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

KfdLink link(int from, int to, long long type) {
  return {type, from, to,
          "/sys/class/kfd/kfd/topology/nodes/" + std::to_string(from) + "/io_links/" + std::to_string(to) +
              "/properties"};
}

// Every GPU gets a PCIe link to the CPU node 0; `xgmi` pairs (GPU indices) get XGMI links both ways.
Facts amd_linked(std::size_t n, std::vector<std::pair<int, int>> xgmi = {}) {
  Facts f = amd_machine(std::vector<long long>(n, 90010));
  for (auto& g : f.gpus) {
    g.kfd->io_links_read = true;
    g.kfd->io_links.push_back(link(g.kfd->node_id, 0, 2));
  }
  for (auto [a, b] : xgmi) {
    auto& ga = *f.gpus[static_cast<std::size_t>(a)].kfd;
    auto& gb = *f.gpus[static_cast<std::size_t>(b)].kfd;
    ga.io_links.push_back(link(ga.node_id, gb.node_id, 11));
    gb.io_links.push_back(link(gb.node_id, ga.node_id, 11));
  }
  return f;
}

// The knowledge with a ROCm support table of its own, so these tests do not depend on rocm.yaml's rows.
const Knowledge& rocm_kb() {
  static const Knowledge k = [] {
    Knowledge x = kb();
    x.rocm_releases = {
        {"6.0",
         {"gfx942", "gfx90a", "gfx908", "gfx1100", "gfx1030", "gfx906"},
         {"ubuntu 22.04"},
         "TEST",
         false},
        {"6.2", {"gfx942", "gfx90a", "gfx908", "gfx1100", "gfx1030"}, {"ubuntu 22.04"}, "TEST", false},
        {"7.0",
         {"gfx950", "gfx942", "gfx90a", "gfx908", "gfx1201", "gfx1200", "gfx1101", "gfx1100", "gfx1030"},
         {"ubuntu 24.04"},
         "TEST",
         false},
    };
    return x;
  }();
  return k;
}

std::vector<Result> run_unneeded(const Facts& f) {
  Facts facts = linked(f, rocm_kb());
  CheckContext ctx{facts, rocm_kb()};
  return run_checks(ctx, catalogue(), builtin_checks(), {"env.hsa-override-unneeded"});
}

void add_rocm_install(Facts& f, const std::string& version) {
  RocmInstall r;
  r.path = "/opt/rocm-" + version;
  r.version = {version, r.path + "/.info/version"};
  f.toolkits.rocm.push_back(r);
}

} // namespace

// ---- env.rccl-fine-grain --------------------------------------------------------------------------------

TEST_CASE("check: env.rccl-fine-grain fires for AMD GPUs over PCIe") {
  SUBCASE("not set") {
    Facts f = amd_linked(2);
    auto r = single(run_check("env.rccl-fine-grain", f));
    expect_fired(r, Status::warn, "",
                 {"2 AMD GPUs", "0-1", "HSA_FORCE_FINE_GRAIN_PCIE is not set", "HSA_FORCE_FINE_GRAIN_PCIE=1"},
                 {});
    CHECK(contains(r.evidence.back(), "io_links/0/properties: PCIe from node 2 to node 0"));
  }
  SUBCASE("set to something other than 1") {
    Facts f = amd_linked(2);
    set_env(f, "HSA_FORCE_FINE_GRAIN_PCIE", "true");
    auto r = single(run_check("env.rccl-fine-grain", f));
    expect_fired(r, Status::warn, "", {"HSA_FORCE_FINE_GRAIN_PCIE=true"}, {});
    CHECK(r.evidence.front() == "env HSA_FORCE_FINE_GRAIN_PCIE=true");
  }
  SUBCASE("two XGMI pairs joined by PCIe") {
    Facts f = amd_linked(4, {{0, 1}, {2, 3}});
    auto r = single(run_check("env.rccl-fine-grain", f));
    expect_fired(r, Status::warn, "", {"4 AMD GPUs", "0-2, 0-3, 1-2, 1-3"}, {});
  }
}

TEST_CASE("check: env.rccl-fine-grain stays quiet otherwise") {
  SUBCASE("set to 1") {
    Facts f = amd_linked(2);
    set_env(f, "HSA_FORCE_FINE_GRAIN_PCIE", "1");
    expect_quiet(single(run_check("env.rccl-fine-grain", f)), Status::pass);
  }
  SUBCASE("a full XGMI hive") {
    Facts f = amd_linked(3, {{0, 1}, {0, 2}, {1, 2}});
    auto r = single(run_check("env.rccl-fine-grain", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "XGMI"));
  }
  SUBCASE("an XGMI link that is down: named, left to gpu.xgmi-links, not called up") {
    Facts f = amd_linked(2, {{0, 1}});
    for (auto& g : f.gpus)
      for (auto& l : g.kfd->io_links)
        if (l.type == 11) l.max_bandwidth = 0;
    auto r = single(run_check("env.rccl-fine-grain", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "the one between GPUs 0-1 is down"));
  }
  SUBCASE("one AMD GPU, or NVIDIA GPUs") {
    expect_quiet(single(run_check("env.rccl-fine-grain", amd_linked(1))), Status::skip);
    expect_quiet(single(run_check("env.rccl-fine-grain", nvidia_machine(8))), Status::skip);
  }
  SUBCASE("io_links not read") {
    Facts f = amd_machine({90010, 90010});
    auto r = single(run_check("env.rccl-fine-grain", f));
    expect_quiet(r, Status::skip);
    CHECK(contains(r.message, "io_links"));
  }
}

// ---- env.hsa-override-unneeded --------------------------------------------------------------------------

TEST_CASE("check: env.hsa-override-unneeded where ROCm supports the GPU") {
  SUBCASE("gfx1101 with 11.0.0 on ROCm 7.0.2") {
    Facts f = amd_machine({110001});
    add_rocm_install(f, "7.0.2");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_unneeded(f));
    expect_fired(r, Status::warn, f.gpus[0].subject(),
                 {"HSA_OVERRIDE_GFX_VERSION=11.0.0", "gfx1100 code", "gfx1101", "ROCm 7.0.2", "Unset it"},
                 {"env-unset-hsa-override"});
    CHECK(contains(r.evidence.back(), "knowledge rocm_releases 7.0: TEST"));
  }
  SUBCASE("the GPU's own target") {
    Facts f = amd_machine({110000});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_unneeded(f));
    expect_fired(r, Status::warn, f.gpus[0].subject(), {"own target, gfx1100", "changes nothing"},
                 {"env-unset-hsa-override"});
  }
  SUBCASE("a ROCm PyTorch whose wheel ships the target, no system ROCm") {
    Facts f = amd_machine({110001});
    f.python.envs.push_back(
        make_python("PATH", "/usr/bin/python3", make_torch("2.13.0+rocm7.2", std::nullopt, "7.2.53211")));
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_unneeded(f));
    expect_fired(r, Status::warn, f.gpus[0].subject(), {"PyTorch 2.13.0+rocm7.2 ships gfx1101 code"},
                 {"env-unset-hsa-override"});
  }
  SUBCASE("the per-node variable of the GPU's KFD node") {
    Facts f = amd_machine({110001, 100301});
    add_rocm_install(f, "7.0.0");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION_1", "11.0.0");
    auto results = run_unneeded(f);
    REQUIRE(results.size() == 2);
    expect_fired(*for_subject(results, f.gpus[0].subject()), Status::warn, f.gpus[0].subject(),
                 {"HSA_OVERRIDE_GFX_VERSION_1=11.0.0"}, {"env-unset-hsa-override"});
    CHECK(for_subject(results, f.gpus[1].subject())->status == Status::pass);
  }
}

TEST_CASE("check: env.hsa-override-unneeded stays quiet where the override may be needed") {
  SUBCASE("ROCm does not list the target") {
    Facts f = amd_machine({100301});
    add_rocm_install(f, "7.0.2");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
    auto r = single(run_unneeded(f));
    expect_quiet(r, Status::pass, f.gpus[0].subject());
    CHECK(contains(r.message, "may be what makes gfx1031 work"));
  }
  SUBCASE("the system ROCm supports it but the ROCm PyTorch's ROCm does not") {
    Facts f = amd_machine({110001});
    add_rocm_install(f, "7.0.2");
    f.python.envs.push_back(
        make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+rocm6.2.4", std::nullopt, "6.2.41134")));
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_unneeded(f));
    expect_quiet(r, Status::pass, f.gpus[0].subject());
    CHECK(contains(r.message, "ships no gfx1101 code")); // the wheel table's 2.6 rocm6.2.4 row
    CHECK(contains(r.evidence.back(), "knowledge torch_wheels 2.6 rocm6.2.4"));
  }
  SUBCASE("a ROCm release gpudoctor has no table for") {
    Facts f = amd_machine({110001});
    add_rocm_install(f, "5.2.3");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_unneeded(f));
    expect_quiet(r, Status::pass, f.gpus[0].subject());
    CHECK(contains(r.message, "not known"));
  }
  SUBCASE("no ROCm at all") {
    Facts f = amd_machine({110001});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    expect_quiet(single(run_unneeded(f)), Status::skip, f.gpus[0].subject());
  }
  SUBCASE("another family is env.hsa-override-mismatch's") {
    Facts f = amd_machine({110000});
    add_rocm_install(f, "7.0.2");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "9.4.2");
    expect_quiet(single(run_unneeded(f)), Status::skip, f.gpus[0].subject());
  }
  SUBCASE("malformed, not set, no AMD GPU") {
    Facts f = amd_machine({110001});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "gfx1100");
    expect_quiet(single(run_unneeded(f)), Status::skip, f.gpus[0].subject());
    expect_quiet(single(run_unneeded(amd_machine())), Status::pass);
    Facts n = nvidia_machine();
    set_env(n, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    expect_quiet(single(run_unneeded(n)), Status::skip);
  }
}

// ---- env.visible-devices-foreign ------------------------------------------------------------------------

TEST_CASE("check: env.visible-devices-foreign on an AMD-only machine") {
  SUBCASE("CUDA_VISIBLE_DEVICES=-1 hides the GPUs from HIP") {
    Facts f = amd_machine({110000, 110000});
    set_env(f, "CUDA_VISIBLE_DEVICES", "-1");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES",
                 {"CUDA_VISIBLE_DEVICES=-1", "hides every one of the 2 AMD", "ROCR_VISIBLE_DEVICES"},
                 {"env-cleanup"});
    CHECK(r.evidence.front() == "env CUDA_VISIBLE_DEVICES=-1");
  }
  SUBCASE("an index past the last GPU") {
    Facts f = amd_machine({110000});
    set_env(f, "CUDA_VISIBLE_DEVICES", "3");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES", {"hides every one"}, {"env-cleanup"});
  }
  SUBCASE("empty: does nothing") {
    Facts f = amd_machine();
    set_env(f, "CUDA_VISIBLE_DEVICES", "");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES", {"empty", "does nothing"}, {"env-cleanup"});
  }
  SUBCASE("empty with a ROCm PyTorch, which reads it itself") {
    Facts f = amd_machine();
    f.python.envs.push_back(
        make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+rocm6.2.4", std::nullopt, "6.2.41134")));
    set_env(f, "CUDA_VISIBLE_DEVICES", "");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES", {"ROCm PyTorch reads it itself"}, {"env-cleanup"});
  }
  SUBCASE("beside HIP_VISIBLE_DEVICES") {
    Facts f = amd_machine({110000, 110000});
    set_env(f, "CUDA_VISIBLE_DEVICES", "0");
    set_env(f, "HIP_VISIBLE_DEVICES", "1");
    auto results = run_check("env.visible-devices-foreign", f);
    REQUIRE(results.size() == 2);
    expect_fired(*for_subject(results, "CUDA_VISIBLE_DEVICES"), Status::warn, "CUDA_VISIBLE_DEVICES",
                 {"HIP uses HIP_VISIBLE_DEVICES instead"}, {"env-cleanup"});
    CHECK(for_subject(results, "HIP_VISIBLE_DEVICES")->status == Status::pass);
  }
  SUBCASE("selecting GPUs that exist: worth knowing") {
    Facts f = amd_machine({110000, 110000});
    set_env(f, "CUDA_VISIBLE_DEVICES", "1");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_quiet(r, Status::info, "CUDA_VISIBLE_DEVICES");
    CHECK(contains(r.message, "HIP honours it"));
  }
}

TEST_CASE("check: env.visible-devices-foreign on an NVIDIA-only machine") {
  for (const char* name : {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
    CAPTURE(name);
    Facts f = nvidia_machine(2);
    set_env(f, name, "0");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_fired(r, Status::warn, name, {std::string(name) + "=0", "does nothing here", "no AMD GPU"},
                 {"env-cleanup"});
  }
}

TEST_CASE("check: env.visible-devices-foreign names the other vendor's runtime and build variables") {
  SUBCASE("a ROCm runtime variable on an NVIDIA-only machine does nothing") {
    for (const char* name : {"HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_1", "AMD_SERIALIZE_KERNEL",
                             "HIP_LAUNCH_BLOCKING", "MIOPEN_USER_DB_PATH"}) {
      CAPTURE(name);
      Facts f = nvidia_machine(2);
      set_env(f, name, "3");
      auto r = single(run_check("env.visible-devices-foreign", f));
      expect_fired(
          r, Status::warn, name,
          {std::string(name) + "=3", "is read by AMD's", "2 NVIDIA GPUs", "does nothing here", "ROCm"},
          {"env-cleanup"});
    }
  }
  SUBCASE("a CUDA runtime variable on an AMD-only machine does nothing; CUDA_VISIBLE_DEVICES is HIP's too") {
    Facts f = amd_machine({110000});
    set_env(f, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_fired(r, Status::warn, "CUDA_DEVICE_ORDER", {"read by NVIDIA's CUDA driver only", "1 AMD GPU"},
                 {"env-cleanup"});
  }
  SUBCASE("an arch list: info without the vendor's toolkit, warn where it would build with it") {
    Facts f = nvidia_machine(1);
    set_env(f, "PYTORCH_ROCM_ARCH", "gfx1030");
    auto r = single(run_check("env.visible-devices-foreign", f));
    expect_quiet(r, Status::info, "PYTORCH_ROCM_ARCH");
    CHECK(contains(r.message, "no ROCm to build with"));
    Facts a = amd_machine({110000});
    set_env(a, "TORCH_CUDA_ARCH_LIST", "8.0;9.0");
    CudaInstall cuda;
    cuda.path = "/usr/local/cuda-12.6";
    cuda.version = {"12.6.77", "/usr/local/cuda-12.6/version.json"};
    a.toolkits.cuda.push_back(cuda);
    auto w = single(run_check("env.visible-devices-foreign", a));
    expect_fired(w, Status::warn, "TORCH_CUDA_ARCH_LIST",
                 {"TORCH_CUDA_ARCH_LIST=8.0;9.0", "its CUDA would build for those targets"}, {"env-cleanup"});
  }
  SUBCASE("the machine's own vendor's variables pass, each once") {
    Facts f = amd_machine({110000});
    set_env(f, "HSA_ENABLE_SDMA", "0");
    set_env(f, "PYTORCH_ROCM_ARCH", "gfx90a");
    auto results = run_check("env.visible-devices-foreign", f);
    CHECK(results.size() == 2);
    CHECK(count_status(results, Status::pass) == 2);
  }
  SUBCASE("unknown and shared names are not judged") {
    Facts f = nvidia_machine(1);
    set_env(f, "GPU_TARGETS", "gfx90a");
    set_env(f, "CUDA_LAUNCH_BLOCKING", "1");
    expect_quiet(single(run_check("env.visible-devices-foreign", f)), Status::pass);
  }
}

TEST_CASE("check: env.visible-devices-foreign stays quiet otherwise") {
  SUBCASE("the machine's own vendor") {
    Facts f = nvidia_machine(2);
    set_env(f, "CUDA_VISIBLE_DEVICES", "1");
    expect_quiet(single(run_check("env.visible-devices-foreign", f)), Status::pass, "CUDA_VISIBLE_DEVICES");
    Facts a = amd_machine();
    set_env(a, "ROCR_VISIBLE_DEVICES", "0");
    expect_quiet(single(run_check("env.visible-devices-foreign", a)), Status::pass, "ROCR_VISIBLE_DEVICES");
  }
  SUBCASE("both vendors present") {
    Facts f = nvidia_machine(1);
    f.gpus.push_back(make_amd_gpu(1));
    set_env(f, "HIP_VISIBLE_DEVICES", "0");
    set_env(f, "CUDA_VISIBLE_DEVICES", "0");
    auto results = run_check("env.visible-devices-foreign", f);
    CHECK(results.size() == 2);
    CHECK(count_status(results, Status::pass) == 2);
  }
  SUBCASE("nothing set, no GPU") {
    expect_quiet(single(run_check("env.visible-devices-foreign", nvidia_machine())), Status::pass);
    Facts none;
    set_env(none, "HIP_VISIBLE_DEVICES", "0");
    expect_quiet(single(run_check("env.visible-devices-foreign", none)), Status::skip);
  }
}

TEST_CASE("check: gpu.xgmi-links") {
  SUBCASE("a link with bandwidth passes; one the firmware found down (bandwidth 0) warns on both GPUs") {
    Facts f = amd_linked(3, {{0, 1}, {1, 2}});
    for (auto& g : f.gpus)
      for (auto& l : g.kfd->io_links)
        if (l.type == 11) {
          l.weight = 15;
          l.max_bandwidth = 50000;
        }
    auto ok = run_check("gpu.xgmi-links", f);
    REQUIRE(ok.size() == 3);
    for (const auto& r : ok)
      CHECK(r.status == Status::pass);
    // The link between gpu1 (node 2) and gpu2 (node 3) did not come up: 0 both ways.
    for (auto [gpu, peer] : {std::pair{1, 3}, std::pair{2, 2}})
      for (auto& l : f.gpus[static_cast<std::size_t>(gpu)].kfd->io_links)
        if (l.type == 11 && l.node_to == peer) l.max_bandwidth = 0;
    auto r = run_check("gpu.xgmi-links", f);
    REQUIRE(r.size() == 3);
    CHECK(r[0].status == Status::pass);
    expect_fired(r[1], Status::warn, "gpu1 (0000:04:00.0)",
                 {"The XGMI link to gpu2 (0000:05:00.0) (KFD node 3)"}, {});
    CHECK(contains(r[1].evidence.back(), "max_bandwidth 0"));
    expect_fired(r[2], Status::warn, "gpu2 (0000:05:00.0)", {"gpu1 (0000:04:00.0)"}, {});
  }
  SUBCASE("no XGMI links, or io_links not read: skip") {
    CHECK(single(run_check("gpu.xgmi-links", amd_linked(2))).status == Status::skip);
    CHECK(single(run_check("gpu.xgmi-links", amd_machine())).status == Status::skip);
  }
}
