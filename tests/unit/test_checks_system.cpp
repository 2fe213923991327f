// cuda.path-mismatch, rocm.gpu-unsupported, rocm.os-unsupported, rocm.multiple, stack.leftover-paths,
// driver.dkms-broken, driver.secure-boot, pcie.link-degraded, pcie.iommu-not-pt, torch.cuda-too-new,
// python.foreign-wheels, repo.codename-mismatch, repo.unreachable, container.nvidia-runtime,
// container.rocm-devices: hand-built facts, one firing and one quiet case (at least) each.
#include "check_fixtures.hpp"
#include "checks/amdgpu_rocm.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

StackPointer pointer(const std::string& what, const std::string& path, const std::string& resolved,
                     const std::string& version, bool exists = true) {
  StackPointer p;
  p.what = what;
  p.path = path;
  p.resolved = resolved;
  p.exists = exists;
  if (!version.empty()) p.version = {version, resolved + "/version.json"};
  return p;
}

void add_rocm(Facts& f, const std::string& version, bool distribution = false) {
  RocmInstall r;
  r.path = distribution ? "dpkg:hipcc" : "/opt/rocm-" + version;
  r.version = {version,
               distribution ? "/var/lib/dpkg/status (hipcc " + version + ")" : r.path + "/.info/version"};
  r.distribution_package = distribution;
  f.toolkits.rocm.push_back(r);
}

// /opt/rocm -> /opt/rocm-<version>, as the collector records it.
void point_opt_rocm(Facts& f, const std::string& version) {
  f.stack_paths.rocm.push_back(pointer("/opt/rocm", "/opt/rocm", "/opt/rocm-" + version, version));
}

void set_os(Facts& f, const std::string& id, const std::string& version, const std::string& codename,
            const std::string& pretty) {
  f.os.id = {id, "/etc/os-release"};
  f.os.version_id = {version, "/etc/os-release"};
  if (!codename.empty()) f.os.codename = {codename, "/etc/os-release"};
  f.os.pretty_name = {pretty, "/etc/os-release"};
}

PathSetting setting(const std::string& variable, const std::string& entry, std::optional<bool> exists,
                    Vendor stack, const std::string& origin) {
  PathSetting s;
  s.variable = variable;
  s.entry = entry;
  s.resolved = entry[0] == '/' ? entry : "";
  s.exists = exists;
  s.stack = stack;
  s.origin = origin;
  return s;
}

RepoSource apt_source(const std::string& vendor, const std::string& uri, const std::string& suite,
                      const std::string& origin, bool release_specific = true) {
  RepoSource s;
  s.vendor = vendor;
  s.kind = "apt";
  s.uri = uri;
  s.suite = suite;
  s.origin = origin;
  s.release_specific = release_specific;
  return s;
}

DkmsModule dkms(const std::string& module, const std::string& version, const std::string& kernel,
                const std::string& state) {
  return {module, version, kernel, kernel.empty() ? "" : "x86_64", state, ""};
}

PythonDist dist(const std::string& name, const std::string& version,
                const std::string& folder = "/usr/lib/python3/dist-packages") {
  return {name, version, folder};
}

} // namespace

TEST_CASE("check: cuda.path-mismatch") {
  SUBCASE("nvcc on PATH 12.1, CUDA_HOME 11.8, /usr/local/cuda 12.1: warn") {
    Facts f = nvidia_machine();
    f.stack_paths.cuda = {
        pointer("nvcc on PATH", "/usr/local/cuda-12.1/bin/nvcc", "/usr/local/cuda-12.1", "12.1.105"),
        pointer("CUDA_HOME", "/usr/local/cuda-11.8", "/usr/local/cuda-11.8", "11.8.89"),
        pointer("/usr/local/cuda", "/usr/local/cuda", "/usr/local/cuda-12.1", "12.1.1")};
    auto r = single(run_check("cuda.path-mismatch", f));
    expect_fired(r, Status::warn, "", {"CUDA_HOME CUDA 11.8", "nvcc on PATH and /usr/local/cuda CUDA 12.1"},
                 {"env-cuda-paths"});
    CHECK(r.evidence.size() == 3);
    CHECK(contains(r.evidence[1], "CUDA_HOME: /usr/local/cuda-11.8 (CUDA 11.8.89"));
  }
  SUBCASE("CUDA_HOME names a missing folder: warn") {
    Facts f = nvidia_machine();
    f.stack_paths.cuda = {pointer("CUDA_HOME", "/usr/local/cuda-11.7", "/usr/local/cuda-11.7", "", false),
                          pointer("/usr/local/cuda", "/usr/local/cuda", "/usr/local/cuda-12.4", "12.4.131")};
    auto r = single(run_check("cuda.path-mismatch", f));
    expect_fired(r, Status::warn, "", {"does not exist", "/usr/local/cuda-11.7"}, {"env-cuda-paths"});
    CHECK(contains(r.evidence[0], "(missing)"));
  }
  SUBCASE("everything on one toolkit: pass") {
    Facts f = nvidia_machine();
    f.stack_paths.cuda = {
        pointer("nvcc on PATH", "/usr/local/cuda/bin/nvcc", "/usr/local/cuda-12.4", "12.4.131"),
        pointer("/usr/local/cuda", "/usr/local/cuda", "/usr/local/cuda-12.4", "12.4.131")};
    auto r = single(run_check("cuda.path-mismatch", f));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "CUDA 12.4"));
  }
  SUBCASE("nothing points at a toolkit: skip") {
    expect_quiet(single(run_check("cuda.path-mismatch", nvidia_machine())), Status::skip);
  }
}

TEST_CASE(
    "check: cuda.path-mismatch also holds PyTorch's CUDA against the toolkit its extension builds take") {
  auto machine = [](const std::string& torch_cuda, const std::string& role, bool cuda_wheel) {
    Facts f = nvidia_machine();
    f.stack_paths.cuda = {pointer("/usr/local/cuda", "/usr/local/cuda", "/usr/local/cuda-11.8", "11.8.89")};
    PythonEnv env;
    env.role = role;
    env.executable = "/opt/conda/envs/minicpm/bin/python";
    env.torch = TorchBuild{"2.4.1+cu121",          torch_cuda,         std::nullopt,
                           "/opt/conda/.../torch", "torch/version.py", "pip"};
    if (cuda_wheel) env.distributions.push_back({"nvidia-cuda-runtime-cu12", "12.1.105", "site", "x"});
    f.python.envs.push_back(env);
    return f;
  };
  SUBCASE("CUDA 12.1 wheel in a conda environment, the 11.8 toolkit builds: warn with PyTorch's words") {
    auto r = single(run_check("cuda.path-mismatch", machine("12.1", "CONDA_PREFIX", false)));
    expect_fired(
        r, Status::warn, "",
        {"The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.1)",
         "conda install cuda-nvcc=12.1"},
        {"env-cuda-paths"});
  }
  SUBCASE("the same with the nvidia-cuda wheels of a pip install: warn; with none of them: information") {
    CHECK(single(run_check("cuda.path-mismatch", machine("12.1", "PATH", true))).status == Status::warn);
    CHECK(single(run_check("cuda.path-mismatch", machine("12.1", "PATH", false))).status == Status::info);
  }
  SUBCASE("another minor release only: pass, saying PyTorch warns and goes on") {
    auto r = single(run_check("cuda.path-mismatch", machine("11.7", "CONDA_PREFIX", true)));
    expect_quiet(r, Status::pass);
    CHECK(contains(r.message, "minor release only"));
  }
  SUBCASE("CUDA_HOME wins over /usr/local/cuda, as in cpp_extension") {
    Facts f = machine("12.1", "CONDA_PREFIX", false);
    f.stack_paths.cuda.insert(f.stack_paths.cuda.begin(), pointer("CUDA_HOME", "/usr/local/cuda-12.4",
                                                                  "/usr/local/cuda-12.4", "12.4.131"));
    auto r = single(run_check("cuda.path-mismatch", f));
    CHECK(r.status ==
          Status::warn); // the paths disagree (12.4 against 11.8), PyTorch's 12 agrees with CUDA_HOME
    CHECK_FALSE(contains(r.message, "refuses another major release"));
  }
}

TEST_CASE("check: rocm.gpu-unsupported") {
  SUBCASE("RX 6700 XT (gfx1031) on ROCm 6.1.3: warn naming the targets") {
    Facts f = amd_machine({100301});
    add_rocm(f, "6.1.3");
    point_opt_rocm(f, "6.1.3");
    auto r = single(run_check("rocm.gpu-unsupported", f));
    expect_fired(r, Status::warn, "gpu0 (0000:03:00.0)",
                 {"gfx1031", "ROCm 6.1.3", "gfx1030", "invalid device function"}, {});
    CHECK(contains(r.evidence.back(), "knowledge rocm.yaml: ROCm 6.1 targets"));
  }
  SUBCASE("the documented workaround (10.3.0 on gfx1031, a supported target of its family): pass") {
    Facts f = amd_machine({100301});
    add_rocm(f, "6.1.3");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0");
    auto r = single(run_check("rocm.gpu-unsupported", f));
    expect_quiet(r, Status::pass, "gpu0 (0000:03:00.0)");
    CHECK(contains(r.message, "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
    CHECK(contains(r.message, "gfx1030"));
  }
  SUBCASE("an override to another ISA family is named, and still warns") {
    Facts f = amd_machine({100301});
    add_rocm(f, "6.1.3");
    set_env(f, "HSA_OVERRIDE_GFX_VERSION", "11.0.0");
    auto r = single(run_check("rocm.gpu-unsupported", f));
    expect_fired(r, Status::warn, "gpu0 (0000:03:00.0)", {"HSA_OVERRIDE_GFX_VERSION=11.0.0"}, {});
  }
  SUBCASE("RX 7900 XTX (gfx1100) on ROCm 6.2.0: pass") {
    Facts f = amd_machine({110000});
    add_rocm(f, "6.2.0");
    expect_quiet(single(run_check("rocm.gpu-unsupported", f)), Status::pass, "gpu0 (0000:03:00.0)");
  }
  SUBCASE("an R9700 (gfx1201) on ROCm 6.3.2 is told the first release that supports it, and the fix") {
    Facts f = amd_machine({120001});
    add_rocm(f, "6.3.2");
    auto r = single(run_check("rocm.gpu-unsupported", f));
    expect_fired(r, Status::warn, "gpu0 (0000:03:00.0)",
                 {"The first ROCm release that supports gfx1201 is 6.4 (a point release after 6.4.0",
                  "`gpudoctor fix install-rocm --rocm 7.0`"},
                 {"install-rocm"});
  }
  SUBCASE("a GPU no release supports any more is told the last one that did") {
    Facts f = amd_machine({90006}); // gfx906 (MI50), dropped after ROCm 6.2
    add_rocm(f, "6.3.2");
    auto r = single(run_check("rocm.gpu-unsupported", f));
    expect_fired(r, Status::warn, "gpu0 (0000:03:00.0)",
                 {"The last ROCm release that supports gfx906 is 6.2"}, {});
  }
  SUBCASE("a target no release lists gets no release to install") {
    Facts f = amd_machine({100301});
    add_rocm(f, "6.1.3");
    auto r = single(run_check("rocm.gpu-unsupported", f));
    CHECK(contains(r.message, "No ROCm release in gpudoctor's tables"));
    CHECK(r.fixes.empty());
  }
  SUBCASE("RDNA4 needs the later 6.4 point releases") {
    Facts f = amd_machine({120001});
    add_rocm(f, "6.4.0");
    expect_fired(single(run_check("rocm.gpu-unsupported", f)), Status::warn, "gpu0 (0000:03:00.0)",
                 {"gfx1201"}, {"install-rocm"});
    Facts g = amd_machine({120001});
    add_rocm(g, "6.4.2");
    expect_quiet(single(run_check("rocm.gpu-unsupported", g)), Status::pass, "gpu0 (0000:03:00.0)");
  }
  SUBCASE("the in-use ROCm is the one /opt/rocm points at, not the newest") {
    Facts f = amd_machine({120001});
    add_rocm(f, "6.1.3");
    add_rocm(f, "7.0.2");
    point_opt_rocm(f, "6.1.3");
    expect_fired(single(run_check("rocm.gpu-unsupported", f)), Status::warn, "gpu0 (0000:03:00.0)",
                 {"ROCm 6.1.3"}, {"install-rocm"});
  }
  SUBCASE("a release the tables lack (the distribution's 5.2): skip") {
    Facts f = amd_machine({100301});
    add_rocm(f, "5.2.3", true);
    auto r = single(run_check("rocm.gpu-unsupported", f));
    expect_quiet(r, Status::skip);
    CHECK(contains(r.message, "distribution"));
  }
  SUBCASE("no AMD GPU: skip") {
    Facts f = nvidia_machine();
    add_rocm(f, "6.2.0");
    expect_quiet(single(run_check("rocm.gpu-unsupported", f)), Status::skip);
  }
}

TEST_CASE("check: rocm.os-unsupported") {
  SUBCASE("ROCm 6.1 on Ubuntu 24.04: warn") {
    Facts f = amd_machine();
    add_rocm(f, "6.1.3");
    point_opt_rocm(f, "6.1.3");
    set_os(f, "ubuntu", "24.04", "noble", "Ubuntu 24.04.1 LTS");
    auto r = single(run_check("rocm.os-unsupported", f));
    expect_fired(r, Status::warn, "", {"ROCm 6.1.3", "Ubuntu 24.04.1 LTS", "ubuntu 22.04"}, {});
    CHECK(contains(r.evidence.front(), "ID=ubuntu VERSION_ID=24.04"));
  }
  SUBCASE("ROCm 6.2 on Ubuntu 24.04, 7.1.1 on RHEL 9.7: pass") {
    Facts f = amd_machine();
    add_rocm(f, "6.2.0");
    set_os(f, "ubuntu", "24.04", "noble", "Ubuntu 24.04 LTS");
    expect_quiet(single(run_check("rocm.os-unsupported", f)), Status::pass);
    Facts g = amd_machine();
    add_rocm(g, "7.1.1");
    set_os(g, "rhel", "9.7", "", "Red Hat Enterprise Linux 9.7 (Plow)");
    expect_quiet(single(run_check("rocm.os-unsupported", g)), Status::pass);
    Facts h = amd_machine();
    add_rocm(h, "7.1.0");
    set_os(h, "rhel", "9.7", "", "Red Hat Enterprise Linux 9.7 (Plow)");
    expect_fired(single(run_check("rocm.os-unsupported", h)), Status::warn, "", {"ROCm 7.1.0"}, {});
  }
  SUBCASE("Linux Mint 21 is judged by its Ubuntu 22.04 base: info") {
    Facts f = amd_machine();
    add_rocm(f, "6.0.2");
    set_os(f, "linuxmint", "21", "vanessa", "Linux Mint 21");
    f.os.id_like = {"ubuntu", "debian"};
    f.repos.ubuntu_codename = {"jammy", "/etc/os-release"};
    auto r = single(run_check("rocm.os-unsupported", f));
    expect_fired(r, Status::info, "", {"Linux Mint 21", "Ubuntu 22.04"}, {});
  }
  SUBCASE("the distribution's own ROCm: pass") {
    Facts f = amd_machine();
    add_rocm(f, "5.2.3", true);
    set_os(f, "debian", "12", "bookworm", "Debian GNU/Linux 12 (bookworm)");
    expect_quiet(single(run_check("rocm.os-unsupported", f)), Status::pass);
  }
  SUBCASE("no ROCm: skip") {
    expect_quiet(single(run_check("rocm.os-unsupported", amd_machine())), Status::skip);
  }
}

TEST_CASE("check: rocm.multiple") {
  SUBCASE("/opt/rocm at 6.0.2, ROCM_PATH at 6.2.0: warn") {
    Facts f = amd_machine();
    add_rocm(f, "6.0.2");
    add_rocm(f, "6.2.0");
    point_opt_rocm(f, "6.0.2");
    f.stack_paths.rocm.push_back(pointer("ROCM_PATH", "/opt/rocm-6.2.0", "/opt/rocm-6.2.0", "6.2.0"));
    auto r = single(run_check("rocm.multiple", f));
    expect_fired(r, Status::warn, "",
                 {"2 ROCm versions", "/opt/rocm -> /opt/rocm-6.0.2", "ROCM_PATH -> /opt/rocm-6.2.0"}, {});
    CHECK(r.evidence.size() == 4);
  }
  SUBCASE("two installs, every pointer agrees: pass") {
    Facts f = amd_machine();
    add_rocm(f, "6.0.2");
    add_rocm(f, "6.2.0");
    point_opt_rocm(f, "6.2.0");
    f.stack_paths.rocm.push_back(pointer("ROCM_PATH", "/opt/rocm", "/opt/rocm-6.2.0", "6.2.0"));
    expect_quiet(single(run_check("rocm.multiple", f)), Status::pass);
  }
  SUBCASE("a pointer to a removed tree is not a second target") {
    Facts f = amd_machine();
    add_rocm(f, "6.0.2");
    add_rocm(f, "6.2.0");
    point_opt_rocm(f, "6.2.0");
    f.stack_paths.rocm.push_back(pointer("ROCM_PATH", "/opt/rocm-5.7.1", "/opt/rocm-5.7.1", "", false));
    expect_quiet(single(run_check("rocm.multiple", f)), Status::pass);
  }
  SUBCASE("one install: pass; none: skip") {
    Facts f = amd_machine();
    add_rocm(f, "6.2.0");
    expect_quiet(single(run_check("rocm.multiple", f)), Status::pass);
    expect_quiet(single(run_check("rocm.multiple", amd_machine())), Status::skip);
  }
}

TEST_CASE("check: stack.leftover-paths") {
  SUBCASE("a .bashrc export of a removed ROCm: warn with file and line") {
    Facts f = amd_machine();
    f.stack_paths.settings = {
        setting("PATH", "/opt/rocm-5.7.1/bin", false, Vendor::amd, "/home/ada/.bashrc:118"),
        setting("LD_LIBRARY_PATH", "/opt/rocm-5.7.1/lib", false, Vendor::amd, "/home/ada/.bashrc:119"),
        setting("PATH", "/opt/rocm/bin", true, Vendor::amd, "env PATH")};
    auto results = run_check("stack.leftover-paths", f);
    REQUIRE(results.size() == 1);
    expect_fired(results[0], Status::warn, "/home/ada/.bashrc", {"2 GPU-stack folders", "missing"},
                 {"env-cleanup"});
    CHECK(contains(results[0].evidence[0], "/home/ada/.bashrc:118: PATH /opt/rocm-5.7.1/bin does not exist"));
  }
  SUBCASE("ROCm paths on an NVIDIA-only machine: warn even when they exist") {
    Facts f = nvidia_machine();
    f.stack_paths.settings = {
        setting("PATH", "/opt/rocm/bin", true, Vendor::amd, "env PATH"),
        setting("ld.so.conf", "/opt/rocm/lib", true, Vendor::amd, "/etc/ld.so.conf.d/rocm.conf:1"),
        setting("PATH", "/usr/local/cuda/bin", true, Vendor::nvidia, "env PATH")};
    auto results = run_check("stack.leftover-paths", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[0], Status::warn, "environment", {"absent vendor"}, {"env-cleanup"});
    CHECK(contains(results[0].evidence[0], "AMD (ROCm) stack, but this machine has only NVIDIA GPUs"));
    expect_fired(results[1], Status::warn, "/etc/ld.so.conf.d/rocm.conf", {"1 GPU-stack folder"},
                 {"env-cleanup"});
  }
  SUBCASE("present paths of the right vendor, and unresolved ones: pass") {
    Facts f = nvidia_machine();
    f.stack_paths.settings = {
        setting("PATH", "/usr/local/cuda/bin", true, Vendor::nvidia, "env PATH"),
        setting("PATH", "$CUDA_ROOT/bin", std::nullopt, Vendor::nvidia, "/home/ada/.profile:3")};
    expect_quiet(single(run_check("stack.leftover-paths", f)), Status::pass);
  }
  SUBCASE("no GPU-stack paths at all: pass") {
    expect_quiet(single(run_check("stack.leftover-paths", amd_machine())), Status::pass);
  }
}

TEST_CASE("check: driver.dkms-broken") {
  const std::string kernel = "6.17.0-8-generic";
  SUBCASE("amdgpu installed for other kernels only, amdgpu not loaded: error") {
    Facts f = amd_machine();
    f.modules.loaded.erase("amdgpu");
    f.os.kernel_release = {"6.17.0-9-generic", "/proc/sys/kernel/osrelease"};
    f.boot.dkms_ran = true;
    f.boot.dkms = {dkms("amdgpu", "6.16.6-2255209.24.04", "6.17.0-5-generic", "installed"),
                   dkms("amdgpu", "6.16.6-2255209.24.04", kernel, "installed")};
    auto r = single(run_check("driver.dkms-broken", f));
    expect_fired(
        r, Status::error, "amdgpu",
        {"built for 6.17.0-5-generic, 6.17.0-8-generic but not for the running kernel 6.17.0-9-generic",
         "linux-headers-6.17.0-9-generic"},
        {"dkms-rebuild"});
  }
  SUBCASE("nvidia built but not installed for the running kernel: error") {
    Facts f = nvidia_machine(1, "");
    f.os.kernel_release = {kernel, "/proc/sys/kernel/osrelease"};
    f.boot.dkms_ran = true;
    f.boot.dkms = {dkms("nvidia", "550.90.07", kernel, "built")};
    f.boot.dkms_messages = {"Error! Bad return status for module build on kernel: 6.17.0-8-generic (x86_64)"};
    auto r = single(run_check("driver.dkms-broken", f));
    expect_fired(r, Status::error, "nvidia", {"only built for the running kernel"}, {"dkms-rebuild"});
    CHECK(contains(r.evidence[2], "Error! Bad return status"));
  }
  SUBCASE("added and never built, while a prebuilt nvidia module is loaded: warn") {
    Facts f = nvidia_machine(1, "550.90.07");
    f.os.kernel_release = {kernel, "/proc/sys/kernel/osrelease"};
    f.boot.dkms_ran = true;
    f.boot.dkms = {dkms("nvidia", "550.90.07", "", "added")};
    expect_fired(single(run_check("driver.dkms-broken", f)), Status::warn, "nvidia",
                 {"never built", "works for now"}, {"dkms-rebuild"});
  }
  SUBCASE("installed for the running kernel: pass") {
    Facts f = amd_machine();
    f.os.kernel_release = {kernel, "/proc/sys/kernel/osrelease"};
    f.boot.dkms_ran = true;
    f.boot.dkms = {dkms("amdgpu", "6.16.6-2255209.24.04", kernel, "installed")};
    expect_quiet(single(run_check("driver.dkms-broken", f)), Status::pass, "amdgpu");
  }
  SUBCASE("no dkms, or inside a container: skip") {
    expect_quiet(single(run_check("driver.dkms-broken", amd_machine())), Status::skip);
    Facts f = amd_machine();
    f.boot.dkms_ran = true;
    f.os.in_container = true;
    expect_quiet(single(run_check("driver.dkms-broken", f)), Status::skip);
  }
}

TEST_CASE("check: driver.secure-boot") {
  SUBCASE("Secure Boot on, nvidia built by DKMS, not loaded: error") {
    Facts f = nvidia_machine(1, "");
    f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
    f.boot.secure_boot_line = "SecureBoot enabled";
    f.boot.dkms_ran = true;
    f.boot.dkms = {dkms("nvidia", "550.120", "6.8.0-45-generic", "installed")};
    auto r = single(run_check("driver.secure-boot", f));
    expect_fired(r, Status::error, "nvidia",
                 {"Secure Boot is enabled", "Key was rejected by service", "mokutil --import"},
                 {"enroll-mok"});
    CHECK(r.evidence[0] == "cmd mokutil-sb-state: SecureBoot enabled");
  }
  SUBCASE("an amdgpu-dkms package alone counts as out of tree") {
    Facts f = amd_machine();
    f.modules.loaded.erase("amdgpu");
    f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
    f.packages.readable = true;
    f.packages.source = "/var/lib/dpkg/status";
    f.packages.installed["amdgpu-dkms"] = "1:6.8.5.60202-2041575.22.04";
    expect_fired(single(run_check("driver.secure-boot", f)), Status::error, "amdgpu", {"amdgpu module"},
                 {"enroll-mok"});
  }
  SUBCASE("the module is loaded, or Secure Boot is off: pass") {
    Facts f = nvidia_machine(1, "550.120");
    f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
    f.boot.dkms = {dkms("nvidia", "550.120", "6.8.0-45-generic", "installed")};
    expect_quiet(single(run_check("driver.secure-boot", f)), Status::pass, "nvidia");
    Facts g = nvidia_machine(1, "");
    g.boot.secure_boot = {"disabled", "cmd mokutil-sb-state"};
    g.boot.dkms = {dkms("nvidia", "550.120", "6.8.0-45-generic", "installed")};
    expect_quiet(single(run_check("driver.secure-boot", g)), Status::pass);
  }
  SUBCASE("no mokutil: skip") {
    expect_quiet(single(run_check("driver.secure-boot", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: pcie.link-degraded") {
  auto link = [](Gpu& g, int width, int max_width, const std::string& speed, const std::string& max_speed) {
    g.link_width_current = width;
    g.link_width_max = max_width;
    g.link_speed_current = speed;
    g.link_speed_max = max_speed;
  };
  SUBCASE("x8 of x16: warn whatever the power state") {
    Facts f = nvidia_machine();
    link(f.gpus[0], 8, 16, "2.5 GT/s PCIe", "16.0 GT/s PCIe");
    f.nvidia.smi_gpus[0].bus_id = "00000000:18:00.0";
    f.nvidia.smi_gpus[0].performance_state = "P8";
    auto r = single(run_check("pcie.link-degraded", f));
    expect_fired(r, Status::warn, "gpu0 (0000:18:00.0)",
                 {"x8 at 2.5 GT/s of x16 at 16.0 GT/s", "fewer lanes"}, {});
  }
  SUBCASE("a slow link on an idle GPU (P8): pass with a note") {
    Facts f = nvidia_machine();
    link(f.gpus[0], 16, 16, "2.5 GT/s PCIe", "16.0 GT/s PCIe");
    f.nvidia.smi_gpus[0].bus_id = "00000000:18:00.0";
    f.nvidia.smi_gpus[0].performance_state = "P8";
    f.nvidia.smi_gpus[0].gpu_utilization = 0;
    auto r = single(run_check("pcie.link-degraded", f));
    expect_quiet(r, Status::pass, "gpu0 (0000:18:00.0)");
    CHECK(contains(r.message, "idle (P8)"));
  }
  SUBCASE("a slow link while busy (P0): warn") {
    Facts f = nvidia_machine();
    link(f.gpus[0], 16, 16, "8.0 GT/s PCIe", "16.0 GT/s PCIe");
    f.nvidia.smi_gpus[0].bus_id = "00000000:18:00.0";
    f.nvidia.smi_gpus[0].performance_state = "P0";
    f.nvidia.smi_gpus[0].gpu_utilization = 97;
    expect_fired(single(run_check("pcie.link-degraded", f)), Status::warn, "gpu0 (0000:18:00.0)", {"busy"},
                 {});
  }
  SUBCASE("AMD: nothing says busy, so a slow link passes; full link passes") {
    Facts f = amd_machine({110000, 110000});
    link(f.gpus[0], 16, 16, "2.5 GT/s PCIe", "16.0 GT/s PCIe");
    link(f.gpus[1], 16, 16, "16.0 GT/s PCIe", "16.0 GT/s PCIe");
    auto results = run_check("pcie.link-degraded", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, "gpu0 (0000:03:00.0)");
    CHECK(contains(results[0].message, "nothing says the GPU is busy"));
    expect_quiet(results[1], Status::pass, "gpu1 (0000:04:00.0)");
  }
  SUBCASE("no link status: skip") {
    expect_quiet(single(run_check("pcie.link-degraded", nvidia_machine())), Status::skip,
                 "gpu0 (0000:18:00.0)");
  }
}

TEST_CASE("check: pcie.iommu-not-pt") {
  SUBCASE("two AMD GPUs without iommu=pt: warn") {
    Facts f = amd_machine({90010, 90010});
    f.os.kernel_cmdline = {"BOOT_IMAGE=/vmlinuz-6.8.0-51-generic root=UUID=x ro quiet splash",
                           "/proc/cmdline"};
    auto r = single(run_check("pcie.iommu-not-pt", f));
    expect_fired(r, Status::warn, "", {"2 AMD GPUs", "iommu=pt"}, {"kernel-iommu-pt"});
    CHECK(contains(r.evidence[0], "/proc/cmdline: BOOT_IMAGE"));
  }
  SUBCASE("iommu=pt, iommu.passthrough=1 or amd_iommu=off: pass") {
    for (const char* cmdline : {"ro quiet iommu=pt", "ro iommu.passthrough=1", "ro amd_iommu=off"}) {
      CAPTURE(cmdline);
      Facts f = amd_machine({90010, 90010});
      f.os.kernel_cmdline = {cmdline, "/proc/cmdline"};
      expect_quiet(single(run_check("pcie.iommu-not-pt", f)), Status::pass);
    }
  }
  SUBCASE("one AMD GPU: skip") {
    Facts f = amd_machine();
    f.os.kernel_cmdline = {"ro quiet", "/proc/cmdline"};
    expect_quiet(single(run_check("pcie.iommu-not-pt", f)), Status::skip);
  }
}

TEST_CASE("check: torch.cuda-too-new") {
  SUBCASE("torch cu124 on driver 470: error") {
    Facts f = nvidia_machine(1, "470.256.02");
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1+cu124", "12.4")));
    auto r = single(run_check("torch.cuda-too-new", f));
    expect_fired(r, Status::error, "python3 (PATH: /usr/bin/python3)",
                 {"CUDA 12.4", "driver 525", "470.256.02"}, {"torch-reinstall", "install-nvidia"});
  }
  SUBCASE("torch cu124 on driver 535 runs through minor-version compatibility: pass") {
    Facts f = nvidia_machine(1, "535.183.01");
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1+cu124", "12.4")));
    expect_quiet(single(run_check("torch.cuda-too-new", f)), Status::pass,
                 "python3 (PATH: /usr/bin/python3)");
  }
  SUBCASE("torch cu128 (CUDA 12.8) on 550 runs; cu130 does not") {
    Facts f = nvidia_machine(1, "550.90.07");
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.9.0+cu130", "13.0")));
    expect_fired(single(run_check("torch.cuda-too-new", f)), Status::error,
                 "python3 (PATH: /usr/bin/python3)", {"CUDA 13.0", "580"},
                 {"torch-reinstall", "install-nvidia"});
  }
  SUBCASE("no driver, no CUDA build: skip") {
    Facts f = nvidia_machine(1, "");
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1+cu124", "12.4")));
    auto results = run_check("torch.cuda-too-new", f);
    expect_quiet(single(results), Status::skip, "python3 (PATH: /usr/bin/python3)");
    expect_quiet(single(run_check("torch.cuda-too-new", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: python.foreign-wheels") {
  SUBCASE("WSL with a ROCm nightly and leftover CUDA wheels (realdata collect-env-rocm-wsl-torch-no-gpu-2)") {
    Facts f; // WSL: no GPU on the PCI bus
    PythonEnv env = make_python("PATH", "/usr/bin/python3",
                                make_torch("2.8.0.dev20250529+rocm6.4", std::nullopt, "6.4.43482-0f2d60242"));
    const std::string site = "/home/ada/.local/lib/python3.12/site-packages";
    env.distributions = {dist("nvidia-cublas-cu12", "12.6.4.1", site),
                         dist("nvidia-nccl-cu12", "2.26.2", site),
                         dist("numpy", "1.26.4", site),
                         dist("pytorch-triton-rocm", "3.3.1+gitc8757738", site),
                         dist("torch", "2.8.0.dev20250529+rocm6.4", site),
                         dist("triton", "3.3.0", site)};
    f.python.envs.push_back(env);
    auto r = single(run_check("python.foreign-wheels", f));
    expect_fired(r, Status::warn, "python3 (PATH: /usr/bin/python3)",
                 {"3 packages", "NVIDIA (CUDA)", "ROCm build", "nvidia-cublas-cu12 12.6.4.1", "triton 3.3.0",
                  "pytorch-triton-rocm"},
                 {});
    CHECK(contains(r.evidence[0], site + ": nvidia-cublas-cu12 12.6.4.1"));
    REQUIRE(r.action.has_value());
    CHECK(r.action->text ==
          "/usr/bin/python3 -m pip uninstall -y nvidia-cublas-cu12 nvidia-nccl-cu12 triton");
  }
  SUBCASE("a name from the machine that pip would read as an option is left out of the command") {
    Facts f = amd_machine();
    PythonEnv env = make_python("PATH", "/usr/bin/python3");
    const std::string site = "/usr/lib/python3/dist-packages";
    env.distributions = {dist("--index-url=http://evil-cu12", "1.0+cu121", site),
                         dist("flash-attn", "2.6.3+cu123torch2.4", site), dist("x;y", "1+cu121", site)};
    f.python.envs.push_back(env);
    auto r = single(run_check("python.foreign-wheels", f));
    REQUIRE(r.action.has_value());
    CHECK(r.action->text == "/usr/bin/python3 -m pip uninstall -y flash-attn");
  }
  SUBCASE("CUDA wheels on an AMD-only machine: warn; ROCm wheels there: pass") {
    Facts f = amd_machine();
    PythonEnv env = make_python("PATH", "/usr/bin/python3");
    env.distributions = {dist("flash-attn", "2.5.8+cu122torch2.3cxx11abifalse"),
                         dist("cupy-cuda12x", "13.3.0")};
    f.python.envs.push_back(env);
    expect_fired(single(run_check("python.foreign-wheels", f)), Status::warn,
                 "python3 (PATH: /usr/bin/python3)", {"flash-attn", "cupy-cuda12x", "only AMD GPUs"}, {});
    Facts g = amd_machine();
    PythonEnv ok = make_python("PATH", "/usr/bin/python3");
    ok.distributions = {dist("torch", "2.6.0+rocm6.2.4"), dist("pytorch-triton-rocm", "3.2.0"),
                        dist("numpy", "2.1.0")};
    g.python.envs.push_back(ok);
    expect_quiet(single(run_check("python.foreign-wheels", g)), Status::pass,
                 "python3 (PATH: /usr/bin/python3)");
  }
  SUBCASE("ROCm wheels on an NVIDIA-only machine: warn; nvidia-*-cu12 there: pass") {
    Facts f = nvidia_machine();
    PythonEnv env = make_python("PATH", "/usr/bin/python3");
    env.distributions = {dist("torchvision", "0.21.0+rocm6.2.4"), dist("nvidia-cudnn-cu12", "9.1.0.70")};
    f.python.envs.push_back(env);
    auto r = single(run_check("python.foreign-wheels", f));
    expect_fired(r, Status::warn, "python3 (PATH: /usr/bin/python3)", {"1 package is", "torchvision"}, {});
    CHECK_FALSE(contains(r.message, "cudnn"));
  }
  SUBCASE("no site folder listed: skip") {
    expect_quiet(single(run_check("python.foreign-wheels", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: repo.codename-mismatch") {
  SUBCASE("ROCm's jammy suite and NVIDIA's ubuntu2204 on Ubuntu 24.04: errors") {
    Facts f = amd_machine();
    set_os(f, "ubuntu", "24.04", "noble", "Ubuntu 24.04.1 LTS");
    f.repos.sources = {
        apt_source("amd", "https://repo.radeon.com/rocm/apt/6.1.3", "jammy",
                   "/etc/apt/sources.list.d/rocm.list:1"),
        apt_source("nvidia", "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64",
                   "/", "/etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list:1"),
        apt_source("amd", "https://repo.radeon.com/amdgpu/6.2/ubuntu", "noble",
                   "/etc/apt/sources.list.d/amdgpu.list:1")};
    auto results = run_check("repo.codename-mismatch", f);
    REQUIRE(results.size() == 3);
    expect_fired(results[0], Status::error, "/etc/apt/sources.list.d/rocm.list:1",
                 {"Ubuntu 22.04 (suite jammy)", "Ubuntu 24.04 (noble)", "Replace jammy by noble"},
                 {"repo-fix-codename"});
    expect_fired(results[1], Status::error, "/etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list:1",
                 {"directory ubuntu2204", "ubuntu2404"}, {"repo-fix-codename"});
    expect_quiet(results[2], Status::pass, "/etc/apt/sources.list.d/amdgpu.list:1");
  }
  SUBCASE("Linux Mint 21 (jammy base) with a jammy suite; the container toolkit's one tree: pass") {
    Facts f = amd_machine();
    set_os(f, "linuxmint", "21", "vanessa", "Linux Mint 21");
    f.os.id_like = {"ubuntu", "debian"};
    f.repos.ubuntu_codename = {"jammy", "/etc/os-release"};
    f.repos.sources = {apt_source("amd", "https://repo.radeon.com/rocm/apt/5.4.3", "jammy",
                                  "/etc/apt/sources.list.d/rocm.list:1"),
                       apt_source("nvidia", "https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH)",
                                  "/", "/etc/apt/sources.list.d/nvidia-container-toolkit.list:1", false)};
    auto results = run_check("repo.codename-mismatch", f);
    REQUIRE(results.size() == 2);
    expect_quiet(results[0], Status::pass, "/etc/apt/sources.list.d/rocm.list:1");
    expect_quiet(results[1], Status::pass, "/etc/apt/sources.list.d/nvidia-container-toolkit.list:1");
  }
  SUBCASE("dnf: NVIDIA's rhel8 tree on RHEL 9.4 is an error, AMD's el/9.4 passes") {
    Facts f = nvidia_machine();
    set_os(f, "rhel", "9.4", "", "Red Hat Enterprise Linux 9.4 (Plow)");
    RepoSource nv;
    nv.vendor = "nvidia";
    nv.kind = "dnf";
    nv.uri = "https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64";
    nv.origin = "/etc/yum.repos.d/cuda-rhel8.repo:1";
    RepoSource amd = nv;
    amd.vendor = "amd";
    amd.uri = "https://repo.radeon.com/amdgpu/6.2/el/9.4/main/x86_64/";
    amd.origin = "/etc/yum.repos.d/amdgpu.repo:1";
    f.repos.sources = {nv, amd};
    auto results = run_check("repo.codename-mismatch", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[0], Status::error, "/etc/yum.repos.d/cuda-rhel8.repo:1",
                 {"RHEL 8 (directory rhel8)"}, {"repo-fix-codename"});
    expect_quiet(results[1], Status::pass, "/etc/yum.repos.d/amdgpu.repo:1");
  }
  SUBCASE("no vendor repository: skip; a disabled one is ignored") {
    Facts f = amd_machine();
    set_os(f, "ubuntu", "24.04", "noble", "Ubuntu 24.04 LTS");
    expect_quiet(single(run_check("repo.codename-mismatch", f)), Status::skip);
    f.repos.sources = {
        apt_source("amd", "https://repo.radeon.com/rocm/apt/6.1.3", "jammy", "/etc/apt/sources.list:60")};
    f.repos.sources[0].enabled = false;
    expect_quiet(single(run_check("repo.codename-mismatch", f)), Status::skip);
  }
}

TEST_CASE("check: repo.unreachable") {
  Facts f = nvidia_machine();
  RepoSource pip;
  pip.vendor = "pytorch";
  pip.kind = "pip";
  pip.uri = "https://download.pytorch.org/whl/cu124";
  pip.origin = "/etc/pip.conf:2";
  f.repos.sources = {pip};
  SUBCASE("without --online: skip") {
    expect_quiet(single(run_check("repo.unreachable", f)), Status::skip);
  }
  SUBCASE("online: a proxy failure warns, a reached index passes") {
    f.repos.online = true;
    RepoProbe bad;
    bad.url = "https://download.pytorch.org/whl/cu124/torch/";
    bad.origin = "/etc/pip.conf:2";
    bad.error = "proxy: Could not resolve proxy: proxy.corp";
    RepoProbe good;
    good.url = "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/InRelease";
    good.origin = "/etc/apt/sources.list.d/cuda.list:1";
    good.reached = true;
    good.http_status = 200;
    f.repos.probes = {bad, good};
    f.env.all["https_proxy"] = "http://user:secret@proxy.corp:3128";
    auto results = run_check("repo.unreachable", f);
    REQUIRE(results.size() == 2);
    expect_fired(results[0], Status::warn, bad.url,
                 {"cannot be fetched", "Could not resolve proxy", "/etc/pip.conf:2"}, {});
    bool proxy_shown = false;
    for (const auto& e : results[0].evidence) {
      proxy_shown = proxy_shown || contains(e, "https_proxy=http://<redacted>@proxy.corp:3128");
      CHECK_FALSE(contains(e, "secret"));
    }
    CHECK(proxy_shown);
    expect_quiet(results[1], Status::pass, good.url);
  }
}

TEST_CASE("check: container.nvidia-runtime") {
  Facts f = nvidia_machine();
  f.containers.docker_installed = true;
  f.containers.docker_evidence = "/usr/bin/docker (on PATH)";
  SUBCASE("docker info lists no nvidia runtime, toolkit installed: warn saying nvidia-ctk") {
    f.containers.docker_info_ok = true;
    f.containers.runtimes = {"io.containerd.runc.v2", "runc"};
    f.containers.nvidia_toolkit_config = true;
    auto r = single(run_check("container.nvidia-runtime", f));
    expect_fired(r, Status::warn, "", {"no nvidia runtime", "nvidia-ctk runtime configure"},
                 {"install-nvidia-container-toolkit"});
    CHECK(contains(r.evidence[1], "Runtimes io.containerd.runc.v2, runc"));
  }
  SUBCASE("docker info refused, daemon.json has nvidia: pass") {
    f.containers.docker_info_error = "permission denied while trying to connect to the Docker daemon socket";
    f.containers.daemon_json_source = "/etc/docker/daemon.json";
    f.containers.daemon_json_runtimes = {"nvidia"};
    expect_quiet(single(run_check("container.nvidia-runtime", f)), Status::pass);
  }
  SUBCASE("docker info refused and no daemon.json: warn, install the toolkit") {
    f.containers.docker_info_error = "permission denied while trying to connect to the Docker daemon socket";
    expect_fired(single(run_check("container.nvidia-runtime", f)), Status::warn, "",
                 {"Install the NVIDIA Container Toolkit"}, {"install-nvidia-container-toolkit"});
  }
  SUBCASE("no Docker, no NVIDIA GPU, or inside a container: skip") {
    expect_quiet(single(run_check("container.nvidia-runtime", nvidia_machine())), Status::skip);
    Facts g = amd_machine();
    g.containers = f.containers;
    expect_quiet(single(run_check("container.nvidia-runtime", g)), Status::skip);
    f.os.in_container = true;
    expect_quiet(single(run_check("container.nvidia-runtime", f)), Status::skip);
  }
}

TEST_CASE("check: container.rocm-devices") {
  Facts f = amd_machine();
  f.os.in_container = true;
  f.os.container_evidence = "/.dockerenv exists";
  add_rocm(f, "6.2.0");
  SUBCASE("no /dev/kfd, no render node: error") {
    f.amd.kfd_device = false;
    auto r = single(run_check("container.rocm-devices", f));
    expect_fired(r, Status::error, "", {"/dev/kfd and the /dev/dri render nodes", "--device=/dev/kfd"}, {});
    CHECK(r.evidence[0] == "container: /.dockerenv exists");
  }
  SUBCASE("/dev/kfd passed, render nodes not: error naming them") {
    f.permissions.kfd = make_node("/dev/kfd", true);
    expect_fired(single(run_check("container.rocm-devices", f)), Status::error, "",
                 {"the /dev/dri render nodes"}, {});
  }
  SUBCASE("both passed: pass; no ROCm in the container: pass") {
    f.permissions.render_nodes = {make_node("/dev/dri/renderD128", true)};
    expect_quiet(single(run_check("container.rocm-devices", f)), Status::pass);
    f.toolkits.rocm.clear();
    f.permissions.render_nodes.clear();
    expect_quiet(single(run_check("container.rocm-devices", f)), Status::pass);
  }
  SUBCASE("not in a container, or no AMD host: skip") {
    expect_quiet(single(run_check("container.rocm-devices", amd_machine())), Status::skip);
    Facts g;
    g.os.in_container = true;
    add_rocm(g, "6.2.0");
    expect_quiet(single(run_check("container.rocm-devices", g)), Status::skip);
  }
}

TEST_CASE("check: container.nvidia-devices, and perm.nvidia-dev deferring to it") {
  Facts f = nvidia_machine();
  f.os.in_container = true;
  f.os.container_evidence = "/.dockerenv exists";
  f.env.all["CUDA_VERSION"] = "12.8.1"; // a CUDA image
  f.permissions.nvidia_nodes = {make_node("/dev/nvidiactl", true, 0666, "root", 0),
                                make_node("/dev/nvidia-uvm", true, 0666, "root", 0)};
  SUBCASE("a CUDA container without /dev/nvidiaN: one error, the container's; perm.nvidia-dev defers") {
    auto r = single(run_check("container.nvidia-devices", f));
    expect_fired(r, Status::error, "", {"it was started without its GPUs", "--gpus all"}, {});
    CHECK(r.evidence[0] == "container: /.dockerenv exists");
    f.permissions.nvidia_nodes.push_back(DeviceNode{"/dev/nvidia0", std::nullopt});
    CHECK(single(run_check("perm.nvidia-dev", f)).status == Status::skip);
  }
  SUBCASE("NVIDIA_VISIBLE_DEVICES void, none or empty is named as the cause") {
    for (const auto& [value, words] : std::vector<std::pair<std::string, std::string>>{
             {"void", "NVIDIA_VISIBLE_DEVICES=void makes the NVIDIA Container Toolkit inject nothing"},
             {" none", "NVIDIA_VISIBLE_DEVICES=none gives it the driver's libraries but no GPU"},
             {"", "NVIDIA_VISIBLE_DEVICES=\"\" makes"}}) {
      f.env.all["NVIDIA_VISIBLE_DEVICES"] = value;
      expect_fired(single(run_check("container.nvidia-devices", f)), Status::error, "", {words}, {});
    }
  }
  SUBCASE("a container without CUDA needs no GPU, whatever NVIDIA_VISIBLE_DEVICES says") {
    f.env.all = {{"NVIDIA_VISIBLE_DEVICES", "void"}};
    expect_quiet(single(run_check("container.nvidia-devices", f)), Status::pass);
    CHECK(single(run_check("perm.nvidia-dev", f)).status == Status::skip);
  }
  SUBCASE("its GPU passed in: pass, and perm.nvidia-dev judges the nodes again") {
    f.permissions.nvidia_nodes.push_back(make_node("/dev/nvidia0", false, 0660, "video", 44));
    expect_quiet(single(run_check("container.nvidia-devices", f)), Status::pass);
    bool judged = false;
    for (const auto& r : run_check("perm.nvidia-dev", f))
      judged = judged || (r.subject == "/dev/nvidia0" && r.status == Status::error);
    CHECK(judged);
  }
  SUBCASE("not in a container, or no NVIDIA host: skip") {
    expect_quiet(single(run_check("container.nvidia-devices", nvidia_machine())), Status::skip);
    Facts g;
    g.os.in_container = true;
    g.env.all["CUDA_VERSION"] = "12.8.1";
    expect_quiet(single(run_check("container.nvidia-devices", g)), Status::skip);
  }
}

TEST_CASE("knowledge: ROCm releases, OS codenames and vendor repositories") {
  const Knowledge& k = kb();
  REQUIRE(k.rocm_release("6.4.0"));
  CHECK(k.rocm_release("6.4.0")->rocm == "6.4.0");
  CHECK(k.rocm_release("6.4.2")->rocm == "6.4");
  CHECK(k.rocm_release("7.1.1")->rocm == "7.1.1");
  CHECK(k.rocm_release("7.1.0")->rocm == "7.1");
  CHECK(k.rocm_release("6.10.0") == std::nullopt); // 6.1 must not match 6.10
  CHECK_FALSE(k.rocm_release("5.2.3"));
  CHECK_FALSE(k.rocm_release("7.13.0"));
  auto r62 = *k.rocm_release("6.2.4");
  CHECK(Knowledge::rocm_supports_os(r62, "ubuntu", "24.04"));
  CHECK(Knowledge::rocm_supports_os(r62, "rhel", "9.4"));
  CHECK_FALSE(Knowledge::rocm_supports_os(r62, "rhel", "9.5"));
  CHECK_FALSE(Knowledge::rocm_supports_os(r62, "debian", "12"));
  CHECK(Knowledge::rocm_supports_os(*k.rocm_release("7.0.2"), "rocky", "9.4")); // "rocky 9" covers 9.x
  CHECK(k.distro_by_codename("ubuntu", "noble")->version == "24.04");
  CHECK(k.distro_by_version("ubuntu", "22.04")->codename == "jammy");
  CHECK_FALSE(k.distro_by_version("ubuntu", "22"));
  CHECK(k.vendor_repo("https://repo.radeon.com/rocm/apt/6.2")->vendor == "amd");
  CHECK(k.vendor_repo("https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/")
            ->release_specific);
  CHECK_FALSE(
      k.vendor_repo("https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH)")->release_specific);
  CHECK(k.vendor_repo("https://user:pw@download.pytorch.org:443/whl/cu124")->vendor == "pytorch");
  CHECK_FALSE(k.vendor_repo("https://radeon.com.evil.example/rocm"));
  CHECK_FALSE(k.vendor_repo("http://archive.ubuntu.com/ubuntu"));
}

TEST_CASE("check: driver.secure-boot counts akmods, kmod packages and vendor modules, not only DKMS") {
  auto sb_on = [] {
    Facts f = nvidia_machine(1, "");
    f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
    f.boot.secure_boot_line = "SecureBoot enabled";
    f.packages.readable = true;
    f.packages.source = "/var/lib/rpm";
    return f;
  };
  SUBCASE("a vendor module under /lib/modules/<kernel>/extra (modinfo), no DKMS, not loaded: error") {
    Facts f = sb_on();
    f.nvidia.modinfo_filename = {"/lib/modules/5.14.0-427.el9.x86_64/extra/drivers/video/nvidia/nvidia.ko.xz",
                                 "cmd modinfo-nvidia"};
    auto r = single(run_check("driver.secure-boot", f));
    expect_fired(r, Status::error, "nvidia", {"out of tree", "Key was rejected by service"}, {"enroll-mok"});
    CHECK(std::any_of(r.evidence.begin(), r.evidence.end(), [](const std::string& e) {
      return contains(e, "/extra/drivers/video/nvidia/nvidia.ko.xz");
    }));
  }
  SUBCASE("a precompiled kmod-nvidia package (RHEL) is out of tree") {
    Facts f = sb_on();
    f.packages.installed["kmod-nvidia-550.90.07-5.14.0-427"] = "550.90.07-1.el9";
    expect_fired(single(run_check("driver.secure-boot", f)), Status::error, "nvidia", {"out of tree"},
                 {"enroll-mok"});
  }
  SUBCASE("a module under the kernel's own tree is not") {
    Facts f = sb_on();
    f.nvidia.modinfo_filename = {"/lib/modules/6.8.0-45-generic/kernel/nvidia-550srv/nvidia.ko",
                                 "cmd modinfo-nvidia"};
    expect_quiet(single(run_check("driver.secure-boot", f)), Status::pass, "nvidia");
  }
}

namespace {

KernelEvent refusal(const std::string& line, int boot = 0) {
  KernelEvent e;
  e.kind = KernelEventKind::module_rejected;
  e.detail = line;
  e.boot = boot;
  e.count = 1;
  e.first_time = e.last_time = "4.2";
  e.boot_relative = true;
  e.first_line = e.last_line = line;
  return e;
}

Facts refused_nvidia(const std::string& module_file) {
  Facts f = nvidia_machine(1, "");
  f.gpus[0].driver = {};
  f.kernel_log.read = true;
  f.kernel_log.source = "cmd dmesg";
  f.kernel_log.events.push_back(
      refusal("Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7"));
  if (!module_file.empty()) f.nvidia.modinfo_filename = {module_file, "cmd modinfo-nvidia"};
  return f;
}

} // namespace

TEST_CASE("check: driver.secure-boot reads the kernel's refusals, whatever built the module") {
  SUBCASE("no mokutil, a module in the kernel's own tree, a refusal this boot: error, never install again") {
    Facts f = refused_nvidia("/lib/modules/6.8.0-45-generic/kernel/drivers/char/nvidia.ko");
    auto r = single(run_check("driver.secure-boot", f));
    expect_fired(r, Status::error, "nvidia",
                 {"refused to load a module", "locked down", "does not help", "mokutil --import"},
                 {"enroll-mok"});
    CHECK(std::any_of(r.evidence.begin(), r.evidence.end(),
                      [](const std::string& e) { return contains(e, "kernel_lockdown.7"); }));
    // driver.not-bound defers: one cause, one finding, and no install-nvidia.
    auto nb = single(run_check("driver.not-bound", f));
    CHECK(nb.status == Status::skip);
    CHECK(contains(nb.message, "driver.secure-boot"));
    CHECK(nb.fixes.empty());
  }
  SUBCASE("Secure Boot off per mokutil but module.sig_enforce refuses: still the refusal") {
    Facts f = refused_nvidia("/lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko");
    f.kernel_log.events = {refusal("Loading of module with unavailable key is rejected")};
    f.boot.secure_boot = {"disabled", "cmd mokutil-sb-state"};
    expect_fired(single(run_check("driver.secure-boot", f)), Status::error, "nvidia",
                 {"enforces module signatures"}, {"enroll-mok"});
  }
  SUBCASE("the refused module was another: nvidia loaded, or not installed at all") {
    Facts f = refused_nvidia("/lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko");
    f.gpus[0].driver = {"nvidia", "sysfs"};
    f.modules.loaded["nvidia"] = "550.120";
    expect_quiet(single(run_check("driver.secure-boot", f)), Status::pass, "nvidia");
  }
  SUBCASE("no nvidia module on the host (a driver container's, or another module): warn, not-bound stays") {
    Facts g = refused_nvidia("");
    auto r = single(run_check("driver.secure-boot", g));
    CHECK(r.status == Status::warn);
    CHECK(contains(r.message, "driver container"));
    auto nb = single(run_check("driver.not-bound", g));
    CHECK(nb.status == Status::error); // nothing installed: installing is a remedy
  }
  SUBCASE("a refusal of the previous boot, or a tainting load, is not this boot's refusal") {
    Facts f = refused_nvidia("/lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko");
    f.kernel_log.events = {refusal("Loading of unsigned module is rejected", -1)};
    expect_quiet(single(run_check("driver.secure-boot", f)), Status::skip);
    CHECK(single(run_check("driver.not-bound", f)).status == Status::error);
  }
  SUBCASE("Secure Boot on, an out-of-tree build not loaded, no log: driver.not-bound defers too") {
    Facts f = nvidia_machine(1, "");
    f.gpus[0].driver = {};
    f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
    f.boot.dkms = {dkms("nvidia", "550.120", "6.8.0-45-generic", "installed")};
    CHECK(single(run_check("driver.secure-boot", f)).status == Status::error);
    CHECK(single(run_check("driver.not-bound", f)).status == Status::skip);
    f.os.in_container = true; // the host's boot: nothing to defer to
    CHECK(single(run_check("driver.not-bound", f)).status == Status::error);
  }
}

TEST_CASE("check: rocm.igpu-visible") {
  // amd_machine numbers the KFD nodes in bus order: the first GPU is device 0.
  SUBCASE("an integrated gfx1036 after a discrete gfx1030: warn, the discrete indices to keep") {
    Facts f = amd_machine({100300, 100306});
    add_rocm(f, "6.1.3");
    auto r = single(run_check("rocm.igpu-visible", f));
    expect_fired(r, Status::warn, "gpu1 (0000:04:00.0)", {"gfx1036", "device 1", "ROCR_VISIBLE_DEVICES=0"},
                 {});
    CHECK_FALSE(contains(r.message, "comes first"));
    REQUIRE(r.action);
    CHECK(r.action->text == "export ROCR_VISIBLE_DEVICES=0");
    // Nothing else speaks of it: no release and no wheel helps.
    for (const char* id : {"rocm.gpu-unsupported", "torch.arch-missing"})
      for (const auto& other : run_check(id, f))
        if (other.subject == "gpu1 (0000:04:00.0)") CHECK_MESSAGE(other.status == Status::skip, id);
  }
  SUBCASE("an integrated GPU first shifts the discrete one off device 0") {
    Facts f = amd_machine({110003, 110000}); // a 780M (gfx1103) before an RX 7900 XTX
    auto r = single(run_check("rocm.igpu-visible", f));
    expect_fired(r, Status::warn, "gpu0 (0000:03:00.0)", {"device 0 is not the discrete GPU", "=1"}, {});
  }
  SUBCASE("hidden from the runtime by ROCR_VISIBLE_DEVICES: pass; by index or by the discrete one's UUID") {
    for (const char* value : {"0", "GPU-e0ce170bfa1769dd"}) {
      Facts f = amd_machine({100300, 100306});
      set_env(f, "ROCR_VISIBLE_DEVICES", value);
      expect_quiet(single(run_check("rocm.igpu-visible", f)), Status::pass, "gpu1 (0000:04:00.0)");
    }
  }
  SUBCASE("ROCR_VISIBLE_DEVICES naming it: warn") {
    Facts f = amd_machine({100300, 100306});
    set_env(f, "ROCR_VISIBLE_DEVICES", "1,0");
    expect_fired(single(run_check("rocm.igpu-visible", f)), Status::warn, "gpu1 (0000:04:00.0)", {"device 1"},
                 {});
  }
  SUBCASE("hidden from HIP only: info, the runtime still opens it (AMD's install guide)") {
    for (const char* name : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
      Facts f = amd_machine({100300, 100306});
      set_env(f, name, "0");
      auto r = single(run_check("rocm.igpu-visible", f));
      CHECK(r.status == Status::info);
      CHECK(contains(r.message, "the ROCm runtime still opens it"));
    }
  }
  SUBCASE("HIP_VISIBLE_DEVICES counts among what ROCR_VISIBLE_DEVICES left") {
    Facts f = amd_machine({100300, 100306, 100300});
    set_env(f, "ROCR_VISIBLE_DEVICES", "1,2"); // the iGPU and the second discrete GPU
    set_env(f, "HIP_VISIBLE_DEVICES", "1");    // of those, the second: the discrete one
    CHECK(single(run_check("rocm.igpu-visible", f)).status == Status::info);
  }
  SUBCASE("only discrete GPUs, or only an integrated one: pass, and the others judge it") {
    expect_quiet(single(run_check("rocm.igpu-visible", amd_machine({100300, 110000}))), Status::pass);
    Facts apu = amd_machine({110003});
    expect_quiet(single(run_check("rocm.igpu-visible", apu)), Status::pass);
    add_rocm(apu, "6.1.3");
    CHECK(single(run_check("rocm.gpu-unsupported", apu)).status == Status::warn);
  }
  SUBCASE("an integrated GPU is no second GPU for the multi-GPU checks") {
    Facts f = amd_machine({100300, 100306});
    f.os.kernel_cmdline = {"BOOT_IMAGE=/vmlinuz ro quiet", "/proc/cmdline"};
    auto r = single(run_check("pcie.iommu-not-pt", f));
    CHECK(r.status == Status::skip);
    CHECK(contains(r.message, "fewer than two discrete AMD GPUs"));
  }
}

TEST_CASE("check: driver.amdgpu-rocm") {
  SUBCASE("amdgpu-dkms's version names the driver release: five digits to 6.4, eight from 30.10") {
    auto a = checks::dkms_release("1:6.12.12.60402-2187269.24.04");
    REQUIRE(a);
    CHECK(a->kernel_base == "6.12.12");
    CHECK(a->release == "6.4.2");
    CHECK(a->line == "6.4");
    auto b = checks::dkms_release("1:6.16.13.30300000-2278356.24.04");
    REQUIRE(b);
    CHECK(b->release == "30.30.0");
    CHECK(b->line == "30.30");
    CHECK(checks::dkms_release("6.10.5.30100200-2109964.24.04")->release == "30.10.2");
    for (const char* bad : {"", "1:", "6.12.12", "1:6.12.12.604x2-1", "1:6.12.12.6040-1", "garbage"})
      CHECK_FALSE(checks::dkms_release(bad));
  }
  auto dkms_machine = [](const std::string& package, const std::string& loaded, const std::string& rocm) {
    Facts f = amd_machine({90010});
    f.packages.source = "/var/lib/dpkg/status";
    f.packages.installed["amdgpu-dkms"] = package;
    f.amd.amdgpu_module_version = {loaded, "/sys/module/amdgpu/version"};
    add_rocm(f, rocm);
    point_opt_rocm(f, rocm);
    return f;
  };
  SUBCASE("the driver of ROCm 6.0.2 with ROCm 7.2.0: warn, naming what the driver supports") {
    Facts f = dkms_machine("1:6.3.6.60002-1718217.22.04", "6.3.6", "7.2.0");
    auto r = single(run_check("driver.amdgpu-rocm", f));
    expect_fired(r, Status::warn, "",
                 {"AMD GPU Driver 6.0.2", "ROCm 5.6, 5.7, 6.0, 6.1, 6.2", "ROCm 7.2.0", "untested pair"}, {});
    REQUIRE(r.action);
    CHECK(contains(r.action->text, "amdgpu-dkms of ROCm 7.2"));
    // driver.dkms-broken says the same of that machine.
    f.os.kernel_release = {"5.15.0-105-generic", "/proc/sys/kernel/osrelease"};
    f.boot.dkms_ran = true;
    f.boot.dkms = {dkms("amdgpu", "6.3.6-1718217.22.04", "5.15.0-105-generic", "installed")};
    auto d = single(run_check("driver.dkms-broken", f));
    CHECK(d.status == Status::pass);
    CHECK(contains(d.message, "but an untested pair: AMD GPU Driver 6.0.2 with ROCm 7.2.0"));
  }
  SUBCASE("a supported pair passes; the driver's own release counts even where the old tables left it out") {
    expect_quiet(single(run_check("driver.amdgpu-rocm",
                                  dkms_machine("1:6.3.6.60002-1718217.22.04", "6.3.6", "6.0.2"))),
                 Status::pass);
    expect_quiet(single(run_check("driver.amdgpu-rocm",
                                  dkms_machine("1:6.16.13.30300000-2278356.24.04", "6.16.13", "7.2.0"))),
                 Status::pass);
  }
  SUBCASE("a loaded module that is not the installed package's: skip (the reboot is dkms-broken's)") {
    auto r = single(
        run_check("driver.amdgpu-rocm", dkms_machine("1:6.12.12.60402-2187269.24.04", "6.8.5", "6.4.2")));
    CHECK(r.status == Status::skip);
    CHECK(contains(r.message, "a reboot loads that one"));
  }
  SUBCASE("the kernel's own amdgpu: judged by the kernels AMD lists for the release on this OS") {
    Facts f = amd_machine({110001});
    f.os.id = {"ubuntu", "/etc/os-release"};
    f.os.version_id = {"24.04", "/etc/os-release"};
    f.os.kernel_release = {"6.8.0-60-generic", "/proc/sys/kernel/osrelease"};
    add_rocm(f, "7.0.2");
    point_opt_rocm(f, "7.0.2");
    expect_quiet(single(run_check("driver.amdgpu-rocm", f)), Status::pass);
    f.os.kernel_release = {"6.17.0-14-generic", "/proc/sys/kernel/osrelease"};
    auto r = single(run_check("driver.amdgpu-rocm", f));
    expect_fired(r, Status::warn, "", {"6.17.0-14-generic", "6.8, 6.14", "untested pair"}, {});
    f.os.kernel_release = {"6.80.1-1-generic", "/proc/sys/kernel/osrelease"}; // 6.8 is no prefix of 6.80
    CHECK(single(run_check("driver.amdgpu-rocm", f)).status == Status::warn);
    f.toolkits.rocm.clear();
    f.stack_paths.rocm.clear();
    add_rocm(f, "7.2.0");
    CHECK(single(run_check("driver.amdgpu-rocm", f)).status == Status::skip); // no kernel list for 7.2
  }
  SUBCASE("the distribution's own ROCm with the kernel's own amdgpu: pass") {
    Facts f = amd_machine({110000});
    add_rocm(f, "5.7.1", true);
    expect_quiet(single(run_check("driver.amdgpu-rocm", f)), Status::pass);
  }
  SUBCASE("the runtime's own word: error") {
    Facts f = dkms_machine("1:6.3.6.60002-1718217.22.04", "6.3.6", "6.0.2");
    ToolRun t = make_tool("rocminfo", "rocminfo");
    t.exit_code = 0;
    t.output =
        "ROCk module version 6.3.6 is loaded\nHSA Error:  Incompatible kernel and userspace, AMD Radeon VII "
        "disabled. Upgrade amdgpu.\n";
    f.tools.push_back(t);
    auto r = single(run_check("driver.amdgpu-rocm", f));
    expect_fired(r, Status::error, "", {"The ROCm runtime itself says", "Incompatible kernel and userspace"},
                 {});
  }
  SUBCASE("no amdgpu loaded, a container, no ROCm: skip") {
    Facts none = amd_machine();
    none.modules.loaded.erase("amdgpu");
    CHECK(single(run_check("driver.amdgpu-rocm", none)).status == Status::skip);
    Facts inside = dkms_machine("1:6.3.6.60002-1718217.22.04", "6.3.6", "7.2.0");
    inside.os.in_container = true;
    CHECK(single(run_check("driver.amdgpu-rocm", inside)).status == Status::skip);
    CHECK(single(run_check("driver.amdgpu-rocm", amd_machine())).status == Status::skip);
  }
}

TEST_CASE(
    "check: container.cuda-require evaluates the image's NVIDIA_REQUIRE_* as the container toolkit does") {
  auto container = [](const std::string& driver, const std::string& cuda, const std::string& brand,
                      std::map<std::string, std::string> env) {
    Facts f = nvidia_machine(1, driver);
    f.os.in_container = true;
    f.nvidia.smi_cuda_version = {cuda, "cmd nvidia-smi-xml"};
    f.nvidia.smi_gpus[0].brand = brand;
    for (auto& [k, v] : env)
      f.env.all[k] = v;
    return f;
  };
  // The CUDA 12.4.1 base image's value (gitlab.com/nvidia/container-images/cuda dist/12.4.1/ubuntu2204/base),
  // shortened to two of its brand/driver alternatives per branch.
  const std::string image_1241 =
      "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=geforce,driver>=470,driver<471 "
      "brand=tesla,driver>=535,driver<536 brand=geforce,driver>=535,driver<536";
  SUBCASE("cuda>=12.8 on a 565.77 driver (CUDA 12.7), started with NVIDIA_DISABLE_REQUIRE: error") {
    auto r = single(run_check("container.cuda-require", container("565.77", "12.7", "NVIDIA",
                                                                  {{"NVIDIA_REQUIRE_CUDA", "cuda>=12.8"},
                                                                   {"NVIDIA_DISABLE_REQUIRE", "true"}})));
    expect_fired(r, Status::error, "NVIDIA_REQUIRE_CUDA",
                 {"requires cuda>=12.8", "driver 565.77 supports CUDA 12.7", "NVIDIA_DISABLE_REQUIRE"}, {});
    REQUIRE(r.action);
  }
  SUBCASE("a 535 Tesla meets the 12.4.1 image through its brand and driver branch; a 550 GeForce does not") {
    auto ok = single(run_check("container.cuda-require", container("535.104.05", "12.2", "Tesla",
                                                                   {{"NVIDIA_REQUIRE_CUDA", image_1241}})));
    CHECK(ok.status == Status::pass);
    CHECK(contains(ok.message, "forward-compatibility"));
    auto bad = single(run_check("container.cuda-require", container("550.54.14", "12.4", "GeForce",
                                                                    {{"NVIDIA_REQUIRE_CUDA", image_1241}})));
    CHECK(bad.status == Status::pass); // 12.4 == 12.4: the first alternative holds
    auto old = single(run_check("container.cuda-require", container("545.23.08", "12.3", "GeForce",
                                                                    {{"NVIDIA_REQUIRE_CUDA", image_1241}})));
    CHECK(old.status == Status::error);
    CHECK(contains(old.message, "CDI mode")); // no NVIDIA_DISABLE_REQUIRE: the toolkit did not check it
  }
  SUBCASE("every NVIDIA_REQUIRE_* must hold; JETPACK is not the toolkit's; a legacy CUDA_VERSION; yes is not "
          "true") {
    auto two = single(
        run_check("container.cuda-require", container("580.95.05", "13.0", "NVIDIA",
                                                      {{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0"},
                                                       {"NVIDIA_REQUIRE_DRIVER", "driver>=590"},
                                                       {"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"}})));
    CHECK(two.status == Status::error);
    CHECK(two.subject == "NVIDIA_REQUIRE_DRIVER");
    auto legacy =
        single(run_check("container.cuda-require",
                         container("470.256.02", "11.4", "Tesla",
                                   {{"CUDA_VERSION", "11.8.0"}, {"NVIDIA_DISABLE_REQUIRE", "yes"}})));
    CHECK(legacy.status == Status::error);
    CHECK(contains(legacy.message, "cuda>=11.8"));
    CHECK(contains(legacy.message, "CDI mode")); // "yes" does not disable (Go's ParseBool)
  }
  SUBCASE("a value the toolkit cannot read: warn; not in a container, or no variable: skip") {
    auto bad =
        single(run_check("container.cuda-require",
                         container("580.95.05", "13.0", "NVIDIA", {{"NVIDIA_REQUIRE_CUDA", "cuda>=12.x"}})));
    CHECK(bad.status == Status::warn);
    CHECK(contains(bad.message, "invalid expression"));
    Facts host = container("580.95.05", "13.0", "NVIDIA", {{"NVIDIA_REQUIRE_CUDA", "cuda>=12.8"}});
    host.os.in_container = false;
    CHECK(single(run_check("container.cuda-require", host)).status == Status::skip);
    CHECK(single(run_check("container.cuda-require", container("580.95.05", "13.0", "NVIDIA", {}))).status ==
          Status::skip);
  }
}
