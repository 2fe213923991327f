// cuda.no-driver, cuda.driver-too-old, stack.both-vendors
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

void add_cuda(Facts& f, const std::string& version, const std::string& folder = "") {
  std::string major_minor = version.substr(0, version.find('.', version.find('.') + 1));
  CudaInstall c;
  c.path = folder.empty() ? "/usr/local/cuda-" + major_minor : folder;
  c.version = {version, c.path + "/version.json"};
  f.toolkits.cuda.push_back(c);
}

void add_rocm_beside_cuda(Facts& f, const std::string& version) {
  RocmInstall r;
  r.path = "/opt/rocm-" + version;
  r.version = {version, r.path + "/.info/version"};
  f.toolkits.rocm.push_back(r);
}

} // namespace

TEST_CASE("check: cuda.no-driver") {
  SUBCASE("toolkit and NVIDIA GPU, no driver: error") {
    Facts f = nvidia_machine(1, "");
    add_cuda(f, "12.4.131");
    auto r = single(run_check("cuda.no-driver", f));
    expect_fired(r, Status::error, "", {"CUDA 12.4.131", "no NVIDIA driver"}, {"install-nvidia"});
    CHECK(contains(r.evidence.front(), "/usr/local/cuda-12.4/version.json: CUDA 12.4.131"));
    CHECK(contains(r.evidence.back(), "/proc/driver/nvidia/version: missing"));
  }
  SUBCASE("toolkit without any NVIDIA GPU: info") {
    Facts f = amd_machine();
    add_cuda(f, "12.6.77");
    auto r = single(run_check("cuda.no-driver", f));
    expect_fired(r, Status::info, "", {"CUDA 12.6.77", "no NVIDIA GPU"}, {});
  }
  SUBCASE("only nvcc on PATH counts as a toolkit") {
    Facts f = nvidia_machine(1, "");
    f.toolkits.nvcc_path = {"/opt/cuda/bin/nvcc", "PATH"};
    f.toolkits.nvcc_version = {"12.0", "cmd nvcc-version"};
    auto r = single(run_check("cuda.no-driver", f));
    expect_fired(r, Status::error, "", {"CUDA 12.0"}, {"install-nvidia"});
  }
  SUBCASE("driver loaded: pass naming it") {
    Facts f = nvidia_machine(1, "550.90.07");
    add_cuda(f, "12.4.131");
    auto r = single(run_check("cuda.no-driver", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "550.90.07"));
  }
  SUBCASE("no toolkit: skip") {
    expect_quiet(single(run_check("cuda.no-driver", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: cuda.driver-too-old with minor-version compatibility") {
  SUBCASE("12.4 toolkit on a 535 driver runs (CUDA 12.x needs >= 525)") {
    Facts f = nvidia_machine(1, "535.183.01");
    add_cuda(f, "12.4.131");
    auto r = single(run_check("cuda.driver-too-old", f));
    expect_quiet(r, Status::pass, "CUDA 12.4.131");
    CHECK(contains(r.message, "535.183.01"));
  }
  SUBCASE("12.8 on 525.60.13, the family's floor") {
    Facts f = nvidia_machine(1, "525.60.13");
    add_cuda(f, "12.8.93");
    expect_quiet(single(run_check("cuda.driver-too-old", f)), Status::pass, "CUDA 12.8.93");
  }
  SUBCASE("13.0 on a 550 driver fails (CUDA 13.x needs >= 580)") {
    Facts f = nvidia_machine(1, "550.90.07");
    add_cuda(f, "13.0.88");
    auto r = single(run_check("cuda.driver-too-old", f));
    expect_fired(r, Status::error, "CUDA 13.0.88", {"CUDA 13.0.88", "580.65.06", "550.90.07", "insufficient"},
                 {"install-nvidia"});
    CHECK(r.evidence.size() >= 3);
    CHECK(contains(r.evidence[1], "driver 550.90.07"));
    CHECK(contains(r.evidence[2], "knowledge cuda.yaml: CUDA 13.0 >= 580.65.06"));
  }
  SUBCASE("12.x on a 520 driver fails (below the 12.x family's 525)") {
    for (const char* v : {"12.0.140", "12.4.131", "12.9.86"}) {
      CAPTURE(v);
      Facts f = nvidia_machine(1, "520.61.05");
      add_cuda(f, v);
      auto r = single(run_check("cuda.driver-too-old", f));
      expect_fired(r, Status::error, "CUDA " + std::string(v), {v, "520.61.05"}, {"install-nvidia"});
    }
  }
  SUBCASE("11.8 on 470 runs (11.x needs >= 450.80.02)") {
    Facts f = nvidia_machine(1, "470.256.02");
    add_cuda(f, "11.8.89");
    expect_quiet(single(run_check("cuda.driver-too-old", f)), Status::pass, "CUDA 11.8.89");
  }
  SUBCASE("a toolkit whose release row is uncertain is still an error below its family's floor") {
    Facts f = nvidia_machine(1, "550.90.07");
    add_cuda(f, "13.4.0");
    auto r = single(run_check("cuda.driver-too-old", f));
    expect_fired(r, Status::error, "CUDA 13.4.0", {"13.4.0", "550.90.07"}, {"install-nvidia"});
  }
  SUBCASE("several toolkits: one result each, distinct subjects") {
    Facts f = nvidia_machine(1, "550.90.07");
    add_cuda(f, "12.4.131");
    add_cuda(f, "13.0.88");
    auto results = run_check("cuda.driver-too-old", f);
    REQUIRE(results.size() == 2);
    CHECK(results[0].subject == "CUDA 12.4.131");
    CHECK(results[0].status == Status::pass);
    CHECK(results[1].subject == "CUDA 13.0.88");
    CHECK(results[1].status == Status::error);
  }
  SUBCASE("nvcc of the same release as an install is not counted twice; another one is") {
    Facts f = nvidia_machine(1, "550.90.07");
    add_cuda(f, "12.4.131");
    f.toolkits.nvcc_path = {"/usr/local/cuda-12.4/bin/nvcc", "PATH"};
    f.toolkits.nvcc_version = {"12.4", "cmd nvcc-version"};
    CHECK(run_check("cuda.driver-too-old", f).size() == 1);
    f.toolkits.nvcc_path = {"/home/u/miniconda3/bin/nvcc", "PATH"};
    f.toolkits.nvcc_version = {"13.0", "cmd nvcc-version"};
    auto results = run_check("cuda.driver-too-old", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[1], Status::error, "CUDA 13.0", {"CUDA 13.0", "550.90.07"}, {"install-nvidia"});
    CHECK(contains(results[1].evidence.front(), "cmd nvcc-version: release 13.0"));
  }
  SUBCASE("driver version from nvidia-smi when the module's is unknown") {
    Facts f = nvidia_machine(1, "550.90.07");
    f.nvidia.kernel_module_version = {};
    f.modules.loaded["nvidia"] = "";
    add_cuda(f, "13.0.88");
    auto r = single(run_check("cuda.driver-too-old", f));
    expect_fired(r, Status::error, "CUDA 13.0.88", {"550.90.07"}, {"install-nvidia"});
    CHECK(contains(r.evidence[1], "cmd nvidia-smi-xml: driver 550.90.07"));
  }
  SUBCASE("a release the tables do not know: skip") {
    Facts f = nvidia_machine(1, "550.90.07");
    add_cuda(f, "9.2.148");
    expect_quiet(single(run_check("cuda.driver-too-old", f)), Status::skip, "CUDA 9.2.148");
  }
  SUBCASE("no driver or no toolkit: skip") {
    Facts no_driver = nvidia_machine(1, "");
    add_cuda(no_driver, "12.4.131");
    expect_quiet(single(run_check("cuda.driver-too-old", no_driver)), Status::skip);
    expect_quiet(single(run_check("cuda.driver-too-old", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: stack.both-vendors") {
  SUBCASE("NVIDIA GPUs with ROCm installed too: purge ROCm") {
    Facts f = nvidia_machine(2);
    add_cuda(f, "12.4.131");
    add_rocm_beside_cuda(f, "6.2.0");
    auto r = single(run_check("stack.both-vendors", f));
    expect_fired(r, Status::warn, "", {"Only NVIDIA GPUs", "ROCm 6.2.0 (/opt/rocm-6.2.0)"}, {"purge-rocm"});
    CHECK(r.evidence.size() == 2);
  }
  SUBCASE("NVIDIA GPUs with the distribution's ROCm runtime pulled in by another package: info, no fix") {
    // Seen on an Ubuntu 24.04 H200 machine: libucx0 (OpenMPI) depends on libamdhip64-5.
    Facts f = nvidia_machine(1);
    add_cuda(f, "13.0.88");
    f.packages.source = "/var/lib/dpkg/status";
    RocmInstall r;
    r.path = "dpkg:libamdhip64-5";
    r.version = {"5.7.1", "/var/lib/dpkg/status (libamdhip64-5 5.7.1-3)"};
    r.distribution_package = true;
    r.required_by = {"libucx0"};
    f.toolkits.rocm.push_back(r);
    auto res = single(run_check("stack.both-vendors", f));
    expect_fired(res, Status::info, "",
                 {"ROCm 5.7.1 (dpkg:libamdhip64-5)", "dependency of libucx0", "keep it"}, {});
    CHECK(res.fixes.empty());
    SUBCASE("the same libraries installed for themselves: purge ROCm") {
      f.toolkits.rocm.front().required_by.clear();
      expect_fired(single(run_check("stack.both-vendors", f)), Status::warn, "", {"Only NVIDIA GPUs"},
                   {"purge-rocm"});
    }
    SUBCASE("beside a vendor ROCm under /opt: purge ROCm") {
      add_rocm_beside_cuda(f, "6.2.0");
      expect_fired(single(run_check("stack.both-vendors", f)), Status::warn, "", {"Only NVIDIA GPUs"},
                   {"purge-rocm"});
    }
  }
  SUBCASE("AMD GPUs with CUDA installed too: purge NVIDIA") {
    Facts f = amd_machine();
    add_cuda(f, "12.4.131");
    add_rocm_beside_cuda(f, "6.4.1");
    auto r = single(run_check("stack.both-vendors", f));
    expect_fired(r, Status::warn, "", {"Only AMD GPUs", "CUDA 12.4.131 (/usr/local/cuda-12.4)"},
                 {"purge-nvidia"});
  }
  SUBCASE("AMD GPUs with only the NVIDIA driver's libraries left over") {
    Facts f = amd_machine();
    add_rocm_beside_cuda(f, "6.4.1");
    f.packages.readable = true;
    f.packages.source = "/var/lib/dpkg/status";
    f.nvidia.libnvidia_ml_versions = {"550.127.05"};
    auto r = single(run_check("stack.both-vendors", f));
    expect_fired(r, Status::warn, "", {"Only AMD GPUs", "NVIDIA user-space driver 550.127.05"},
                 {"purge-nvidia"});
    CHECK_FALSE(contains(r.message, "CUDA toolkit"));
  }
  SUBCASE("GPUs of both vendors: pass") {
    Facts f = nvidia_machine(1);
    f.gpus.push_back(make_amd_gpu(1));
    add_cuda(f, "12.4.131");
    add_rocm_beside_cuda(f, "6.2.0");
    expect_quiet(single(run_check("stack.both-vendors", f)), Status::pass);
  }
  SUBCASE("no GPU at all: info") {
    Facts f;
    add_cuda(f, "12.4.131");
    add_rocm_beside_cuda(f, "6.2.0");
    auto r = single(run_check("stack.both-vendors", f));
    expect_fired(r, Status::info, "", {"CUDA 12.4.131", "ROCm 6.2.0"}, {});
  }
  SUBCASE("one stack: pass") {
    Facts f = amd_machine();
    add_rocm_beside_cuda(f, "6.2.0");
    auto r = single(run_check("stack.both-vendors", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "only ROCm"));
  }
}
