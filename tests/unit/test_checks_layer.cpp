// The checks of the layer above the driver (issue 12) as pure functions of facts: env.cuda-stubs, wsl.driver
// (and the WSL2 gate), container.shm-small, rdma.memlock, env.nccl-ib-hca-missing, python.extension-mismatch,
// python.libs-shadowed.
#include "check_fixtures.hpp"
#include "engine/runner.hpp"
#include "util/text.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

LoaderDir loader(const std::string& dir, std::vector<std::string> files,
                 const std::string& origin = "env LD_LIBRARY_PATH") {
  return LoaderDir{dir, origin, std::move(files)};
}

Facts ib_machine(std::vector<IbPort> ports) {
  Facts f = nvidia_machine(8);
  f.network.ib_devices = {"mlx5_0", "mlx5_1"};
  f.network.ib_source = "/sys/class/infiniband";
  f.host.ib_ports = std::move(ports);
  return f;
}

IbPort port(const std::string& device, int n, const std::string& state) {
  return IbPort{device, n, state, "InfiniBand", "/sys/class/infiniband/" + device + "/ports/1/state"};
}

CompiledExtension extension(const std::string& dist, const std::string& version,
                            std::vector<CompiledExtension::Library> libs) {
  CompiledExtension x;
  x.dist = dist;
  x.version = version;
  x.folder = "/venv/lib/python3.12/site-packages";
  x.libraries = std::move(libs);
  return x;
}

Facts with_env(Facts f, std::optional<TorchBuild> torch, std::vector<CompiledExtension> extensions) {
  PythonEnv env = make_python("VIRTUAL_ENV", "/venv/bin/python3", std::move(torch));
  env.extensions = std::move(extensions);
  f.python.envs.push_back(std::move(env));
  return f;
}

} // namespace

TEST_CASE("env.cuda-stubs: a stubs folder the loader searches") {
  Facts f = nvidia_machine(1);
  f.env.all["LIBRARY_PATH"] = "/usr/local/cuda/lib64/stubs";
  // A build container: the linker's path only (NVIDIA's devel images) stays quiet.
  Result quiet = single(run_check("env.cuda-stubs", f));
  expect_quiet(quiet, Status::pass);
  CHECK(contains(quiet.message, "LIBRARY_PATH"));

  f.host.loader_dirs.push_back(
      loader("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs", {"libcuda.so", "libnvidia-ml.so"}));
  Result warn = single(run_check("env.cuda-stubs", f));
  expect_fired(warn, Status::warn, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs",
               {"dlopen(\"libcuda.so\")"}, {"env-cuda-paths"});

  f.host.loader_dirs.back().files->push_back("libcuda.so.1"); // someone linked it there
  Result error = single(run_check("env.cuda-stubs", f));
  expect_fired(error, Status::error, "/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs",
               {"every CUDA program loads this stub"}, {"env-cuda-paths"});

  Facts conf = nvidia_machine(1);
  conf.host.loader_dirs.push_back(
      loader("/usr/local/cuda/lib64/stubs", {"libcuda.so"}, "/etc/ld.so.conf.d/cuda.conf:2"));
  CHECK(single(run_check("env.cuda-stubs", conf)).status == Status::warn);
}

TEST_CASE("wsl.driver and the WSL2 gate") {
  Facts f;
  expect_quiet(single(run_check("wsl.driver", f)), Status::skip);
  f.host.wsl_evidence = "/proc/sys/kernel/osrelease: 5.15.153.1-microsoft-standard-WSL2";
  f.host.wsl_libs = std::vector<std::string>{"libcuda.so.1", "libd3d12.so", "nvidia-smi"};
  f.host.dxg = FileStat{FileType::chr, 0666, 0, 0, "root"};
  expect_quiet(single(run_check("wsl.driver", f)), Status::pass);

  Facts shadow = f;
  shadow.host.wsl_shadows = {"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                             "package nvidia-driver-535 535.183.01"};
  expect_fired(single(run_check("wsl.driver", shadow)), Status::error, "",
               {"Linux NVIDIA driver is installed inside the distribution", "nvidia-driver-535"}, {});
  Facts nodxg = f;
  nodxg.host.dxg.reset();
  CHECK(contains(single(run_check("wsl.driver", nodxg)).message, "/dev/dxg is missing"));

  // The runner skips what makes no sense there, saying why.
  auto results = run_checks(CheckContext{linked(f), kb()}, catalogue(), builtin_checks(),
                            {"gpu.none", "driver.dkms-broken", "wsl.driver"});
  REQUIRE(results.size() == 3);
  CHECK(results[0].status == Status::skip);
  CHECK(contains(results[0].message, "WSL2: the GPU is the Windows host's"));
  CHECK(contains(results[1].message, "DKMS"));
  CHECK(results[2].status == Status::pass);
}

TEST_CASE("container.shm-small") {
  Facts f = nvidia_machine(2);
  f.os.in_container = true;
  f.os.container_evidence = "/.dockerenv exists";
  f.host.shm_bytes = 64ull << 20;
  f.host.shm_source = "cmd df-shm";
  expect_fired(single(run_check("container.shm-small", f)), Status::warn, "/dev/shm",
               {"64 MiB", "--shm-size=1g"}, {});
  f.host.shm_bytes = 16ull << 30;
  expect_quiet(single(run_check("container.shm-small", f)), Status::pass, "/dev/shm");
  Facts one = nvidia_machine(1);
  one.os.in_container = true;
  expect_quiet(single(run_check("container.shm-small", one)), Status::skip);
  Facts host = nvidia_machine(2); // not a container
  host.host.shm_bytes = 64ull << 20;
  expect_quiet(single(run_check("container.shm-small", host)), Status::skip);
}

TEST_CASE("rdma.memlock") {
  Facts f = ib_machine({});
  f.host.memlock_soft = "8388608";
  f.host.memlock_hard = "8388608";
  f.host.memlock_source = "/proc/self/limits";
  expect_fired(single(run_check("rdma.memlock", f)), Status::warn, "", {"8192 KiB", "unlimited"}, {});
  f.host.memlock_soft = "unlimited";
  expect_quiet(single(run_check("rdma.memlock", f)), Status::pass);
  expect_quiet(single(run_check("rdma.memlock", nvidia_machine(1))), Status::skip);
}

TEST_CASE("env.nccl-ib-hca-missing") {
  auto judge = [](const std::string& value, std::vector<IbPort> ports) {
    Facts f = ib_machine(std::move(ports));
    set_env(f, "NCCL_IB_HCA", value);
    return single(run_check("env.nccl-ib-hca-missing", f));
  };
  std::vector<IbPort> up = {port("mlx5_0", 1, "ACTIVE"), port("mlx5_1", 1, "ACTIVE")};
  expect_quiet(judge("mlx5", up), Status::pass, "NCCL_IB_HCA");
  expect_quiet(judge("=mlx5_0:1,mlx5_1:1", up), Status::pass, "NCCL_IB_HCA");
  expect_fired(judge("mlx4_0", up), Status::error, "NCCL_IB_HCA", {"mlx4_0 matches no device"},
               {"env-nccl-defaults"});
  expect_fired(judge("=mlx5_0:2", up), Status::error, "NCCL_IB_HCA", {"has no port 2"},
               {"env-nccl-defaults"});
  expect_fired(judge("mlx5_1", {port("mlx5_0", 1, "ACTIVE"), port("mlx5_1", 1, "DOWN")}), Status::error,
               "NCCL_IB_HCA", {"mlx5_1 has no ACTIVE port"}, {"env-nccl-defaults"});
  expect_fired(judge("^mlx5", up), Status::error, "NCCL_IB_HCA", {"excludes every"}, {"env-nccl-defaults"});
  expect_quiet(judge("^mlx5_1", up), Status::pass, "NCCL_IB_HCA");
  // "=" matches names exactly: "=mlx5" names no device.
  CHECK(judge("=mlx5", up).status == Status::error);
}

TEST_CASE("python.extension-mismatch: vendor, CUDA major, PyTorch release") {
  TorchBuild rocm = make_torch("2.5.1+rocm6.2", std::nullopt, "6.2.41133");
  TorchBuild cu124 = make_torch("2.5.1+cu124", "12.4");

  // bitsandbytes' PyPI wheel (CUDA libraries only) on an AMD machine.
  Facts amd =
      with_env(amd_machine({110000}), rocm,
               {extension("bitsandbytes", "0.43.3",
                          {{"/venv/lib/python3.12/site-packages/bitsandbytes/libbitsandbytes_cuda121.so",
                            std::vector<std::string>{"libcudart.so.12", "libc.so.6"}}})});
  Result bnb = single(run_check("python.extension-mismatch", amd));
  expect_fired(bnb, Status::error, "bitsandbytes (python3 VIRTUAL_ENV: /venv/bin/python3)",
               {"built for NVIDIA (CUDA 12)", "PyPI releases carry CUDA libraries only"},
               {"torch-reinstall"});

  // flash-attn's ROCm build keeps the module name flash_attn_2_cuda: its DT_NEEDED says ROCm.
  Facts fa = with_env(
      amd_machine({110000}), rocm,
      {extension("flash-attn", "2.6.3",
                 {{"/venv/lib/python3.12/site-packages/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so",
                   std::vector<std::string>{"libc10.so", "libc10_hip.so", "libamdhip64.so.6"}}})});
  expect_quiet(single(run_check("python.extension-mismatch", fa)), Status::pass,
               "flash-attn (python3 VIRTUAL_ENV: /venv/bin/python3)");

  // A CUDA 11 build beside a CUDA 12 PyTorch, and a label for another PyTorch release.
  Facts cu11 = with_env(nvidia_machine(1), cu124,
                        {extension("flash-attn", "2.6.3+cu118torch2.4cxx11abiFALSE",
                                   {{"/venv/lib/python3.12/site-packages/flash_attn_2_cuda.so",
                                     std::vector<std::string>{"libcudart.so.11.0", "libc10_cuda.so"}}})});
  Result r = single(run_check("python.extension-mismatch", cu11));
  CHECK(r.status == Status::error);
  CHECK(contains(r.message, "built for CUDA 11"));
  CHECK(contains(r.message, "built against PyTorch 2.4"));

  // torchvision pinned to another torch.
  CompiledExtension tv = extension("torchvision", "0.20.0+cu124", {});
  tv.requires_torch = {"==2.5.0"};
  Result pin = single(run_check("python.extension-mismatch", with_env(nvidia_machine(1), cu124, {tv})));
  CHECK(pin.status == Status::error);
  CHECK(contains(pin.message, "requires torch==2.5.0 while 2.5.1+cu124 is installed"));
  tv.requires_torch = {"==2.5.1"};
  expect_quiet(single(run_check("python.extension-mismatch", with_env(nvidia_machine(1), cu124, {tv}))),
               Status::pass, "torchvision (python3 VIRTUAL_ENV: /venv/bin/python3)");

  // The triton torch pins.
  Facts tri = with_env(amd_machine({110000}), rocm, {});
  tri.python.envs[0].torch_requires["pytorch-triton-rocm"] = "==3.1.0";
  tri.python.envs[0].distributions.push_back(
      {"pytorch-triton-rocm", "3.0.0", "/venv/lib/python3.12/site-packages", ""});
  expect_fired(single(run_check("python.extension-mismatch", tri)), Status::error,
               "pytorch-triton-rocm (python3 VIRTUAL_ENV: /venv/bin/python3)",
               {"built with pytorch-triton-rocm 3.1.0"}, {"torch-reinstall"});
}

TEST_CASE("python.libs-shadowed") {
  Facts f = nvidia_machine(1);
  PythonEnv env = make_python("VIRTUAL_ENV", "/venv/bin/python3", make_torch("2.5.1+cu124", "12.4"));
  env.distributions = {{"nvidia-nvjitlink-cu12", "12.4.127", "/venv/lib/python3.12/site-packages", ""}};
  env.wheel_libs["/venv/lib/python3.12/site-packages/nvidia/nvjitlink/lib"] = {"__init__.py",
                                                                               "libnvJitLink.so.12"};
  f.python.envs.push_back(env);
  expect_quiet(single(run_check("python.libs-shadowed", f)), Status::pass,
               "python3 (VIRTUAL_ENV: /venv/bin/python3)");
  f.host.loader_dirs.push_back(
      loader("/usr/local/cuda-12.1/lib64", {"libcudart.so.12", "libnvJitLink.so.12"}));
  Result r = single(run_check("python.libs-shadowed", f));
  expect_fired(r, Status::warn, "python3 (VIRTUAL_ENV: /venv/bin/python3)",
               {"/usr/local/cuda-12.1/lib64 on LD_LIBRARY_PATH holds libnvJitLink.so.12", "undefined symbol"},
               {});
  // cu11 and cu12 wheels together.
  Facts mixed = nvidia_machine(1);
  PythonEnv m = make_python("VIRTUAL_ENV", "/venv/bin/python3");
  m.distributions = {{"nvidia-cublas-cu11", "11.11.3.6", "/s", ""},
                     {"nvidia-cublas-cu12", "12.4.5.8", "/s", ""},
                     {"nvidia-cuda-runtime-cu12", "12.4.127", "/s", ""}};
  mixed.python.envs.push_back(m);
  CHECK(contains(single(run_check("python.libs-shadowed", mixed)).message,
                 "installed together (cu11 (1), cu12 (2))"));
}
