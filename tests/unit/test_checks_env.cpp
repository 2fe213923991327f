// env.hsa-override-invalid, env.hsa-override-mismatch, env.visible-devices-empty
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("check: env.hsa-override-invalid rejects what libhsakmt rejects") {
  for (const char* bad : {"gfx1030", "10.3", "10.3.0.1", "64.0.0", " 10.3.0", "", "10.3.0 ", "10.256.0",
                          "10.3.x", "10..0", "-1.0.0", "1e1.0.0"}) {
    CAPTURE(bad);
    Facts f = amd_machine();
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", bad);
    auto r = single(run_check("env.hsa-override-invalid", f));
    expect_fired(r, Status::error, "HSA_OVERRIDE_GFX_VERSION",
                 {"HSA_OVERRIDE_GFX_VERSION=\"" + std::string(bad) + "\""}, {"env-unset-hsa-override"});
    CHECK(r.evidence.front() == "env HSA_OVERRIDE_GFX_VERSION=" + std::string(bad));
  }
}

TEST_CASE("check: env.hsa-override-invalid accepts major.minor.stepping within libhsakmt's limits") {
  for (const char* good : {"10.3.0", "11.0.0", "9.4.2", "63.255.255", "0.0.0", "9.0.10"}) {
    CAPTURE(good);
    Facts f = amd_machine();
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", good);
    auto r = single(run_check("env.hsa-override-invalid", f));
    expect_quiet(r, Status::pass, "HSA_OVERRIDE_GFX_VERSION");
    CHECK(contains(r.message, good));
  }
  SUBCASE("not set") {
    auto r = single(run_check("env.hsa-override-invalid", amd_machine()));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "not set"));
  }
}

TEST_CASE("check: env.hsa-override-invalid judges the per-node variables one by one") {
  Facts f = amd_machine({110000, 100300});
  set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
  set_env(f, "HSA_OVERRIDE_GFX_VERSION_2", "10.3");
  auto results = run_check("env.hsa-override-invalid", f);
  REQUIRE(results.size() == 2);
  auto global = for_subject(results, "HSA_OVERRIDE_GFX_VERSION");
  auto node = for_subject(results, "HSA_OVERRIDE_GFX_VERSION_2");
  REQUIRE(global);
  REQUIRE(node);
  CHECK(global->status == Status::pass);
  expect_fired(*node, Status::error, "HSA_OVERRIDE_GFX_VERSION_2", {"HSA_OVERRIDE_GFX_VERSION_2=\"10.3\""},
               {"env-unset-hsa-override"});
}

TEST_CASE("check: env.hsa-override-mismatch across ISA families") {
  SUBCASE("9.4.2 on gfx1201 (the spec's example)") {
    Facts f = amd_machine({120001});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "9.4.2");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_fired(
        r, Status::error, f.gpus[0].subject(),
        {"HSA_OVERRIDE_GFX_VERSION=9.4.2", "gfx942", "gfx1201", "Radeon AI PRO R9700", "GFX9", "GFX12"},
        {"env-unset-hsa-override"});
    CHECK(r.evidence.size() == 3);
    CHECK(r.evidence[0] == "env HSA_OVERRIDE_GFX_VERSION=9.4.2");
    CHECK(contains(r.evidence[2], "nodes/1/properties: gfx_target_version 120001"));
  }
  SUBCASE("11.0.0 on gfx1201: RDNA3 code on RDNA4") {
    Facts f = amd_machine({120001});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"gfx1100", "gfx1201"}, {"env-unset-hsa-override"});
  }
  SUBCASE("10.3.0 on gfx1010: RDNA2 code on RDNA1, same major") {
    Facts f = amd_machine({100100});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"gfx1030", "gfx1010", "RDNA1", "RDNA2"},
                 {"env-unset-hsa-override"});
  }
}

TEST_CASE("check: env.hsa-override-mismatch passes within a family") {
  SUBCASE("gfx1031 with 10.3.0 (the classic RX 6700 XT override)") {
    Facts f = amd_machine({100301});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_quiet(r, Status::pass, f.gpus[0].subject());
    CHECK(contains(r.message, "gfx1030"));
    CHECK(contains(r.message, "gfx1031"));
    CHECK(contains(r.message, "same family"));
    CHECK_FALSE(r.evidence.empty());
  }
  SUBCASE("gfx1103 APU with 11.0.0") {
    Facts f = amd_machine({110003});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    expect_quiet(single(run_check("env.hsa-override-mismatch", f)), Status::pass, f.gpus[0].subject());
  }
  SUBCASE("the GPU's own target") {
    Facts f = amd_machine({110000});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    expect_quiet(single(run_check("env.hsa-override-mismatch", f)), Status::pass, f.gpus[0].subject());
  }
}

TEST_CASE("check: env.hsa-override-mismatch: the per-node variable wins over the global one") {
  // Node ids are the KFD's: node 0 is the CPU, the GPUs are nodes 1 and 2.
  Facts f = amd_machine({110000, 100301});
  REQUIRE(f.gpus[1].kfd->node_id == 2);
  set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
  SUBCASE("per-node fixes the GPU the global one would break") {
    set_env(f, "HSA_OVERRIDE_GFX_VERSION_2", "10.3.0");
    auto results = run_check("env.hsa-override-mismatch", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, f.gpus[0].subject());
    CHECK(contains(results[0].message, "HSA_OVERRIDE_GFX_VERSION=11.0.0"));
    expect_quiet(results[1], Status::pass, f.gpus[1].subject());
    CHECK(contains(results[1].message, "HSA_OVERRIDE_GFX_VERSION_2=10.3.0"));
  }
  SUBCASE("without it the global one breaks the second GPU") {
    auto results = run_check("env.hsa-override-mismatch", f);
    REQUIRE(results.size() == 2);
    CHECK(results[0].status == Status::pass);
    expect_fired(results[1], Status::error, f.gpus[1].subject(),
                 {"HSA_OVERRIDE_GFX_VERSION=11.0.0", "gfx1031"}, {"env-unset-hsa-override"});
  }
  SUBCASE("a per-node variable for the wrong node does not apply") {
    set_env(f, "HSA_OVERRIDE_GFX_VERSION_1", "10.3.0"); // node 1 is the gfx1100: now that one breaks
    auto results = run_check("env.hsa-override-mismatch", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[0], Status::error, f.gpus[0].subject(),
                 {"HSA_OVERRIDE_GFX_VERSION_1=10.3.0", "gfx1100"}, {"env-unset-hsa-override"});
    expect_fired(results[1], Status::error, f.gpus[1].subject(), {"HSA_OVERRIDE_GFX_VERSION=11.0.0"},
                 {"env-unset-hsa-override"});
  }
  SUBCASE("only a per-node variable: other GPUs have no override") {
    f.env.all.erase("HSA_OVERRIDE_GFX_VERSION");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION_2", "10.3.0");
    auto results = run_check("env.hsa-override-mismatch", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, f.gpus[0].subject());
    CHECK(contains(results[0].message, "no override"));
    expect_quiet(results[1], Status::pass, f.gpus[1].subject());
  }
}

TEST_CASE("check: env.hsa-override-mismatch when it cannot judge") {
  SUBCASE("not set") {
    expect_quiet(single(run_check("env.hsa-override-mismatch", amd_machine())), Status::pass);
  }
  SUBCASE("malformed: left to env.hsa-override-invalid") {
    Facts f = amd_machine();
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "gfx1030");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_quiet(r, Status::skip, f.gpus[0].subject());
    CHECK(contains(r.message, "env.hsa-override-invalid"));
  }
  SUBCASE("no AMD GPU") {
    Facts f = nvidia_machine();
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
    expect_quiet(single(run_check("env.hsa-override-mismatch", f)), Status::skip);
  }
  SUBCASE("the GPU's target is unknown") {
    Facts f = amd_machine();
    f.gpus[0].kfd->gfx_target_version.reset();
    f.gpus[0].model.reset();
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
    expect_quiet(single(run_check("env.hsa-override-mismatch", f)), Status::skip, f.gpus[0].subject());
  }
  SUBCASE("a target the tables cannot place, same major: warn, not error") {
    // GFX10 holds two families (10.1 RDNA1, 10.3 RDNA2): 10.2.0 is in neither.
    Facts f = amd_machine({100300});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.2.0");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_fired(r, Status::warn, f.gpus[0].subject(), {"gfx1020", "gfx1030", "not known"},
                 {"env-unset-hsa-override"});
  }
  SUBCASE("a target the tables lack but can place by its neighbours: judged by family") {
    Facts f = amd_machine({100100});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.1.2"); // gfx1012, RDNA1 like the gfx1010
    expect_quiet(single(run_check("env.hsa-override-mismatch", f)), Status::pass, f.gpus[0].subject());
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.7"); // RDNA2 numbering: another family
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"gfx1037", "gfx1010"}, {"env-unset-hsa-override"});
  }
  SUBCASE("a target the tables lack, another major: still an error") {
    Facts f = amd_machine({120001});
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.7");
    auto r = single(run_check("env.hsa-override-mismatch", f));
    expect_fired(r, Status::error, f.gpus[0].subject(), {"gfx1037", "gfx1201"}, {"env-unset-hsa-override"});
  }
}

TEST_CASE("check: env.visible-devices-empty on one NVIDIA GPU") {
  Facts f = nvidia_machine(1);
  auto judge = [&](const std::string& value) {
    set_env(f, "CUDA_VISIBLE_DEVICES", value);
    return single(run_check("env.visible-devices-empty", f));
  };
  SUBCASE("empty hides every GPU") {
    auto r = judge("");
    expect_fired(r, Status::error, "CUDA_VISIBLE_DEVICES", {"empty"}, {"env-visible-devices"});
    CHECK(r.evidence.front() == "env CUDA_VISIBLE_DEVICES=");
  }
  SUBCASE("-1 hides every GPU") {
    expect_fired(judge("-1"), Status::error, "CUDA_VISIBLE_DEVICES", {"CUDA_VISIBLE_DEVICES=-1", "every GPU"},
                 {"env-visible-devices"});
  }
  SUBCASE("0,1 names a GPU that does not exist: a warning, the one GPU stays visible") {
    auto r = judge("0,1");
    expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES", {"CUDA_VISIBLE_DEVICES=0,1", "device 1", "1 GPU"},
                 {"env-visible-devices"});
    CHECK(contains(r.message, "device 0 stays visible (every GPU here)"));
    CHECK_FALSE(contains(r.message, "after it"));
  }
  SUBCASE("1,0: CUDA stops at the bad entry, the ones after it are ignored") {
    auto r = judge("1,0");
    expect_fired(r, Status::error, "CUDA_VISIBLE_DEVICES", {"device 1", "no GPU is visible", "after it"},
                 {"env-visible-devices"});
  }
  SUBCASE("garbage") {
    expect_fired(judge("gpu0"), Status::error, "CUDA_VISIBLE_DEVICES",
                 {"\"gpu0\"", "neither an index nor a UUID"}, {"env-visible-devices"});
  }
  SUBCASE("0 passes") {
    auto r = judge("0");
    expect_quiet(r, Status::pass, "CUDA_VISIBLE_DEVICES");
    CHECK(contains(r.message, "selects 1 of 1"));
  }
  SUBCASE("a known UUID, in full or as a prefix, passes") {
    expect_quiet(judge(f.nvidia.smi_gpus[0].uuid), Status::pass, "CUDA_VISIBLE_DEVICES");
    expect_quiet(judge("GPU-8932f937"), Status::pass, "CUDA_VISIBLE_DEVICES");
  }
  SUBCASE("an unknown UUID") {
    auto r = judge("GPU-00000000-1111-2222-3333-444444444444");
    expect_fired(r, Status::error, "CUDA_VISIBLE_DEVICES",
                 {"GPU-00000000-1111-2222-3333-444444444444", "no GPU's UUID"}, {"env-visible-devices"});
  }
  SUBCASE("UUIDs not known (no nvidia-smi): benefit of the doubt") {
    f.nvidia.smi_gpus.clear();
    expect_quiet(judge("GPU-00000000-1111-2222-3333-444444444444"), Status::pass, "CUDA_VISIBLE_DEVICES");
  }
  SUBCASE("MIG UUIDs are not in nvidia-smi's GPU list: not judged unknown") {
    expect_quiet(judge("MIG-4e1a7d1c-6a2f-5d3b-9c8e-0f1e2d3c4b5a"), Status::pass, "CUDA_VISIBLE_DEVICES");
  }
  SUBCASE("unset: pass for the machine") {
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_quiet(r, Status::pass);
  }
  SUBCASE("AMD variables on an NVIDIA-only machine are not judged here") {
    set_env(f, "HIP_VISIBLE_DEVICES", "-1");
    set_env(f, "ROCR_VISIBLE_DEVICES", "7");
    expect_quiet(single(run_check("env.visible-devices-empty", f)), Status::pass);
  }
}

TEST_CASE("check: env.visible-devices-empty on several GPUs") {
  Facts f = nvidia_machine(2);
  set_env(f, "CUDA_VISIBLE_DEVICES", "1,0");
  auto r = single(run_check("env.visible-devices-empty", f));
  expect_quiet(r, Status::pass, "CUDA_VISIBLE_DEVICES");
  CHECK(contains(r.message, "selects 2 of 2"));
  set_env(f, "CUDA_VISIBLE_DEVICES", "0,2");
  r = single(run_check("env.visible-devices-empty", f));
  expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES", {"device 2", "2 GPUs", "indices 0..1"},
               {"env-visible-devices"});
}

TEST_CASE("check: env.visible-devices-empty on an AMD-only machine") {
  Facts f = amd_machine({110000, 110000});
  SUBCASE("CUDA_VISIBLE_DEVICES=-1 hides the GPUs from HIP too") {
    set_env(f, "CUDA_VISIBLE_DEVICES", "-1");
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_fired(r, Status::error, "CUDA_VISIBLE_DEVICES", {"CUDA_VISIBLE_DEVICES=-1"},
                 {"env-visible-devices"});
  }
  SUBCASE("CUDA_VISIBLE_DEVICES=1 selects an AMD GPU") {
    set_env(f, "CUDA_VISIBLE_DEVICES", "1");
    expect_quiet(single(run_check("env.visible-devices-empty", f)), Status::pass, "CUDA_VISIBLE_DEVICES");
  }
  SUBCASE("CUDA_VISIBLE_DEVICES=2 names a third GPU") {
    set_env(f, "CUDA_VISIBLE_DEVICES", "2");
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_fired(r, Status::error, "CUDA_VISIBLE_DEVICES", {"device 2", "2 GPUs"}, {"env-visible-devices"});
  }
  SUBCASE("HIP reads HIP_VISIBLE_DEVICES first: CUDA_VISIBLE_DEVICES beside it hides nothing") {
    set_env(f, "CUDA_VISIBLE_DEVICES", "-1");
    set_env(f, "HIP_VISIBLE_DEVICES", "0");
    auto results = run_check("env.visible-devices-empty", f);
    REQUIRE(results.size() == 2);
    CHECK(count_status(results, Status::error) == 0);
    auto cuda = for_subject(results, "CUDA_VISIBLE_DEVICES");
    REQUIRE(cuda);
    CHECK(contains(cuda->message, "HIP uses HIP_VISIBLE_DEVICES"));
  }
  SUBCASE("empty HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES are unset for HIP") {
    set_env(f, "HIP_VISIBLE_DEVICES", "");
    set_env(f, "CUDA_VISIBLE_DEVICES", "");
    auto results = run_check("env.visible-devices-empty", f);
    REQUIRE(results.size() == 2);
    for (const auto& r : results) {
      expect_quiet(r, Status::pass, r.subject);
      CHECK(contains(r.message, "treat as unset"));
    }
  }
  SUBCASE("an empty ROCR_VISIBLE_DEVICES hides every GPU (ROCr filters on set, not on non-empty)") {
    set_env(f, "ROCR_VISIBLE_DEVICES", "");
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_fired(r, Status::error, "ROCR_VISIBLE_DEVICES", {"empty"}, {"env-visible-devices"});
  }
  SUBCASE("HIP_VISIBLE_DEVICES past the last GPU") {
    set_env(f, "HIP_VISIBLE_DEVICES", "0,1,2,3");
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_fired(r, Status::warn, "HIP_VISIBLE_DEVICES",
                 {"device 2", "devices 0, 1 stay visible (every GPU here)"}, {"env-visible-devices"});
  }
  SUBCASE("AMD UUIDs are not compared with NVIDIA ones") {
    Facts mixed = nvidia_machine(1);
    mixed.gpus.push_back(make_amd_gpu(1));
    set_env(mixed, "ROCR_VISIBLE_DEVICES", "GPU-5c2f6a1b3d4e7f80");
    expect_quiet(single(run_check("env.visible-devices-empty", mixed)), Status::pass, "ROCR_VISIBLE_DEVICES");
  }
}

TEST_CASE("check: env.visible-devices-empty warns, under a title true for it, while GPUs stay visible") {
  SUBCASE("ROCR_VISIBLE_DEVICES=0,1,2,3 on two GPUs: both stay visible, the rest name none") {
    Facts f = amd_machine({110000, 110000});
    set_env(f, "ROCR_VISIBLE_DEVICES", "0,1,2,3");
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_fired(r, Status::warn, "ROCR_VISIBLE_DEVICES",
                 {"device 2", "devices 0, 1 stay visible (every GPU here)"}, {"env-visible-devices"});
    CHECK_FALSE(contains(r.title, "every GPU"));
  }
  SUBCASE("CUDA_VISIBLE_DEVICES=0,0 repeats a device") {
    Facts f = nvidia_machine(2);
    set_env(f, "CUDA_VISIBLE_DEVICES", "0,0");
    auto r = single(run_check("env.visible-devices-empty", f));
    expect_fired(r, Status::warn, "CUDA_VISIBLE_DEVICES", {"repeats device 0", "device 0 stays visible"},
                 {"env-visible-devices"});
  }
  SUBCASE("no GPU left visible is still an error") {
    Facts f = nvidia_machine(2);
    set_env(f, "CUDA_VISIBLE_DEVICES", "5,0");
    CHECK(single(run_check("env.visible-devices-empty", f)).status == Status::error);
  }
}
