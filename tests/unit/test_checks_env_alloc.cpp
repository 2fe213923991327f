// env.alloc-conf-invalid, env.alloc-conf-shadowed
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

Facts with_torch(Facts f, const std::string& version, std::optional<std::string> cuda,
                 std::optional<std::string> hip) {
  f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch(version, cuda, hip)));
  return f;
}

} // namespace

TEST_CASE("check: env.alloc-conf-invalid rejects what PyTorch rejects") {
  struct Case {
    const char *value, *says;
  };
  for (auto c : {
           Case{"expandable_segments:true", "True or False"},
           Case{"expandable_segment:True", "did you mean expandable_segments?"},
           Case{"garbage_collection_threshold:1.5", "between 0 and 1"},
           Case{"garbage_collection_threshold:0", "between 0 and 1"},
           Case{"garbage_collection_threshold:high", "not a number"},
           Case{"max_split_size_mb:10", "at least 20"},
           Case{"max_split_size_mb:lots", "not a whole number"},
           Case{"max_split_size_mb=512", "not an allocator option"},
           Case{"roundup_power2_divisions:3", "power of two"},
           Case{"roundup_power2_divisions:[256:3]", "divisions 3 must be a power of two"},
           Case{"roundup_power2_divisions:[300:4]", "size 300 must be a power of two"},
           Case{"roundup_power2_divisions:[256:1,512:2", "closing \"]\""},
           Case{"backend:async", "not one of native, cudaMallocAsync, hipMallocAsync"},
           Case{"pinned_num_register_threads:6", "power of two"},
           Case{"expandable_segments", "needs \":value\""},
           // PyTorch drops blanks: the value becomes "Truemax_split_size_mb".
           Case{"expandable_segments:True max_split_size_mb:512",
                "Truemax_split_size_mb must be True or False"},
           Case{"expandable_segments:True,", "trailing"},
           Case{":True", "where an option name belongs"},
       }) {
    CAPTURE(c.value);
    Facts f = nvidia_machine();
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", c.value);
    auto r = single(run_check("env.alloc-conf-invalid", f));
    expect_fired(r, Status::error, "PYTORCH_CUDA_ALLOC_CONF", {c.says, "option:value"}, {});
    CHECK(r.evidence.front() == "env PYTORCH_CUDA_ALLOC_CONF=" + std::string(c.value));
  }
}

TEST_CASE("check: env.alloc-conf-invalid accepts what PyTorch accepts") {
  for (const char* value :
       {"expandable_segments:True", "max_split_size_mb:512,garbage_collection_threshold:0.6",
        "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", " expandable_segments : True ",
        "backend:cudaMallocAsync", "roundup_power2_divisions:4", "roundup_power2_divisions:[>:0]", "",
        "pinned_use_hip_host_register:False,release_lock_on_hipmalloc:True", "max_split_size_mb:512MB",
        "pinned_num_register_threads:8,pinned_use_background_threads:True", "backend:hipMallocAsync"}) {
    CAPTURE(value);
    for (const char* name : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
      Facts f = amd_machine();
      set_env(f, name, value);
      expect_quiet(single(run_check("env.alloc-conf-invalid", f)), Status::pass, name);
    }
  }
}

TEST_CASE("check: env.alloc-conf-invalid edge cases") {
  SUBCASE("hipMallocAsync on a CUDA build") {
    Facts f = with_torch(nvidia_machine(), "2.6.0+cu124", "12.4", std::nullopt);
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "backend:hipMallocAsync");
    auto r = single(run_check("env.alloc-conf-invalid", f));
    expect_fired(r, Status::error, "PYTORCH_CUDA_ALLOC_CONF", {"only for ROCm builds"}, {});
  }
  SUBCASE("an option only newer PyTorch knows warns") {
    Facts f = nvidia_machine();
    set_env(f, "PYTORCH_ALLOC_CONF", "graph_capture_record_stream_reuse:yes");
    auto r = single(run_check("env.alloc-conf-invalid", f));
    expect_fired(r, Status::warn, "PYTORCH_ALLOC_CONF", {"True or False"}, {});
  }
  SUBCASE("each variable judged") {
    Facts f = amd_machine();
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "expandable_segments:yes");
    auto results = run_check("env.alloc-conf-invalid", f);
    REQUIRE(results.size() == 2);
    CHECK(for_subject(results, "PYTORCH_CUDA_ALLOC_CONF")->status == Status::pass);
    CHECK(for_subject(results, "PYTORCH_HIP_ALLOC_CONF")->status == Status::error);
  }
  SUBCASE("none set") {
    expect_quiet(single(run_check("env.alloc-conf-invalid", nvidia_machine())), Status::pass);
  }
}

TEST_CASE("check: env.alloc-conf-shadowed on ROCm") {
  SUBCASE("PYTORCH_HIP_ALLOC_CONF behind PYTORCH_CUDA_ALLOC_CONF on AMD GPUs") {
    Facts f = amd_machine({90010, 90010});
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True");
    auto r = single(run_check("env.alloc-conf-shadowed", f));
    expect_fired(
        r, Status::warn, "PYTORCH_HIP_ALLOC_CONF",
        {"PYTORCH_HIP_ALLOC_CONF=expandable_segments:True is ignored", "PYTORCH_CUDA_ALLOC_CONF=max_split"},
        {});
    CHECK(r.evidence.size() == 2);
  }
  SUBCASE("a ROCm PyTorch on a machine without AMD GPUs (a container image being built)") {
    Facts f = with_torch(Facts{}, "2.6.0+rocm6.2.4", std::nullopt, "6.2.41134");
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True");
    auto r = single(run_check("env.alloc-conf-shadowed", f));
    CHECK(r.status == Status::warn);
    CHECK(r.evidence.back() == "/usr/lib/python3/dist-packages/torch/version.py: version 2.6.0+rocm6.2.4");
  }
  SUBCASE("the same value in both") {
    Facts f = amd_machine();
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True");
    auto results = run_check("env.alloc-conf-shadowed", f);
    CHECK(count_status(results, Status::warn) == 0);
  }
  SUBCASE("a CUDA machine does not read PYTORCH_HIP_ALLOC_CONF") {
    Facts f = with_torch(nvidia_machine(), "2.6.0+cu124", "12.4", std::nullopt);
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True");
    auto results = run_check("env.alloc-conf-shadowed", f);
    CHECK(count_status(results, Status::warn) == 0);
  }
}

TEST_CASE("check: env.alloc-conf-shadowed with PYTORCH_ALLOC_CONF") {
  SUBCASE("newer PyTorch reads PYTORCH_ALLOC_CONF first") {
    Facts f = with_torch(nvidia_machine(), "2.9.0+cu128", "12.8", std::nullopt);
    set_env(f, "PYTORCH_ALLOC_CONF", "expandable_segments:True");
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512");
    auto r = single(run_check("env.alloc-conf-shadowed", f));
    expect_fired(
        r, Status::warn, "PYTORCH_CUDA_ALLOC_CONF",
        {"is ignored", "PyTorch 2.9.0+cu128", "reads PYTORCH_ALLOC_CONF=expandable_segments:True first"}, {});
  }
  SUBCASE("older PyTorch ignores PYTORCH_ALLOC_CONF") {
    Facts f = with_torch(nvidia_machine(), "2.6.0+cu124", "12.4", std::nullopt);
    set_env(f, "PYTORCH_ALLOC_CONF", "expandable_segments:True");
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512");
    auto r = single(run_check("env.alloc-conf-shadowed", f));
    expect_fired(r, Status::warn, "PYTORCH_ALLOC_CONF",
                 {"predates PYTORCH_ALLOC_CONF", "uses PYTORCH_CUDA_ALLOC_CONF"}, {});
  }
  SUBCASE("older ROCm PyTorch: PYTORCH_ALLOC_CONF ignored, then CUDA before HIP") {
    Facts f = with_torch(amd_machine(), "2.6.0+rocm6.2.4", std::nullopt, "6.2.41134");
    set_env(f, "PYTORCH_ALLOC_CONF", "expandable_segments:True");
    set_env(f, "PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "garbage_collection_threshold:0.6");
    auto results = run_check("env.alloc-conf-shadowed", f);
    REQUIRE(results.size() == 2);
    CHECK(for_subject(results, "PYTORCH_ALLOC_CONF")->status == Status::warn);
    CHECK(for_subject(results, "PYTORCH_HIP_ALLOC_CONF")->status == Status::warn);
  }
  SUBCASE("no PyTorch found: hedged") {
    Facts f = amd_machine();
    set_env(f, "PYTORCH_ALLOC_CONF", "expandable_segments:True");
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "max_split_size_mb:512");
    auto r = single(run_check("env.alloc-conf-shadowed", f));
    expect_fired(r, Status::warn, "PYTORCH_HIP_ALLOC_CONF",
                 {"newer PyTorch (2.9+, as far as gpudoctor knows)"}, {});
  }
  SUBCASE("one variable: nothing hidden") {
    Facts f = amd_machine();
    set_env(f, "PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True");
    expect_quiet(single(run_check("env.alloc-conf-shadowed", f)), Status::pass);
    expect_quiet(single(run_check("env.alloc-conf-shadowed", amd_machine())), Status::pass);
  }
}
