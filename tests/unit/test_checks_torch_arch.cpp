// torch.arch-missing without probes: the installed wheel's release and index looked up in the wheel table
// (knowledge pytorch_wheels.yaml), the arch rule, and the probe's answer winning when probes ran.
#include "check_fixtures.hpp"
#include "checks/torch_wheel.hpp"
#include "util/text.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

Facts nvidia_with(unsigned device, TorchBuild torch) {
  Facts f = nvidia_machine(1);
  f.gpus[0] = make_nvidia_gpu(0, device);
  f.python.envs.push_back(make_python("VIRTUAL_ENV", "/home/ada/venv/bin/python3", std::move(torch)));
  return f;
}

TorchBuild venv_torch(const std::string& version, std::optional<std::string> cuda,
                      std::optional<std::string> hip = std::nullopt) {
  TorchBuild t =
      make_torch(version, std::move(cuda), std::move(hip), "/home/ada/venv/lib/python3.12/site-packages");
  t.installer = "pip";
  return t;
}

Result arch_result(const Facts& f) {
  return single(run_check("torch.arch-missing", f));
}

} // namespace

TEST_CASE("arch rule: same-major machine code of a lower minor, PTX, arch-specific code") {
  using arch_rule::entry_runs_on;
  CHECK(entry_runs_on("sm_86", "sm_89")); // an RTX 4090 runs sm_86 code
  CHECK_FALSE(entry_runs_on("sm_89", "sm_86"));
  CHECK_FALSE(entry_runs_on("sm_80", "sm_90")); // another major
  CHECK(entry_runs_on("sm_120", "sm_121"));
  CHECK(entry_runs_on("sm_100", "sm_103"));
  CHECK(entry_runs_on("compute_90", "sm_120")); // PTX the driver compiles
  CHECK_FALSE(entry_runs_on("compute_120", "sm_90"));
  CHECK(entry_runs_on("sm_90a", "sm_90"));
  CHECK_FALSE(entry_runs_on("sm_90a", "sm_100")); // sm_90a runs only on Hopper
  CHECK_FALSE(entry_runs_on("compute_90a", "sm_100"));
  CHECK(entry_runs_on("gfx1030", "gfx1030:sramecc-:xnack-"));
  CHECK_FALSE(entry_runs_on("gfx1030", "gfx1031")); // ROCm: the exact target
  CHECK_FALSE(entry_runs_on("sm_", "sm_90"));
  CHECK_FALSE(entry_runs_on("garbage", "sm_90"));
}

TEST_CASE("torch.arch-missing without probes: an RTX 5090 and torch 2.5.1+cu124") {
  Facts f = nvidia_with(0x2b85, venv_torch("2.5.1+cu124", "12.4"));
  Result r = arch_result(f);
  expect_fired(r, Status::error, f.gpus[0].subject(),
               {"2.5.1+cu124", "sm_120", "no kernel image is available",
                "The first release whose wheels carry sm_120 is PyTorch 2.7 on "
                "https://download.pytorch.org/whl/cu128"},
               {"torch-reinstall"});
  CHECK(contains(text::join(r.evidence, "\n"), "knowledge torch_wheels 2.5 cu124"));

  // A plain PyPI wheel has no label: its release's default CUDA, which version.py names.
  Facts pypi = nvidia_with(0x2b85, venv_torch("2.5.1", "12.4"));
  Result p = arch_result(pypi);
  CHECK(p.status == Status::error);
  CHECK(contains(text::join(p.evidence, "\n"), "plain PyPI wheel of 2.5"));
}

TEST_CASE("torch.arch-missing without probes: healthy machines stay quiet") {
  // An RTX 4090 (sm_89) runs the sm_86 code of a cu124 wheel.
  expect_quiet(arch_result(nvidia_with(0x2684, venv_torch("2.4.1+cu124", "12.4"))), Status::pass,
               make_nvidia_gpu(0, 0x2684).subject());
  // An H100 with the cu126 wheel of 2.6.
  expect_quiet(arch_result(nvidia_with(0x2330, venv_torch("2.6.0+cu126", "12.6"))), Status::pass,
               make_nvidia_gpu(0, 0x2330).subject());
}

TEST_CASE("torch.arch-missing without probes: an RX 6700 XT, and the documented override") {
  Facts f = amd_machine({100301}); // gfx1031, in no official wheel
  f.python.envs.push_back(make_python("VIRTUAL_ENV", "/home/ada/venv/bin/python3",
                                      venv_torch("2.3.1+rocm6.0", std::nullopt, "6.0.32830")));
  Result r = arch_result(f);
  expect_fired(r, Status::error, f.gpus[0].subject(), {"gfx1031", "invalid device function"},
               {"torch-reinstall"});
  set_env(f, "HSA_OVERRIDE_GFX_VERSION", "10.3.0"); // same ISA family: ROCm loads the gfx1030 code
  Result ok = arch_result(f);
  expect_quiet(ok, Status::pass, f.gpus[0].subject());
  CHECK(contains(ok.message, "through HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  set_env(f, "HSA_OVERRIDE_GFX_VERSION",
          "11.0.0"); // another family is no mapping (env.hsa-override-mismatch)
  CHECK(arch_result(f).status == Status::error);
}

TEST_CASE("torch.arch-missing without probes: builds the table has no list for are skipped, saying why") {
  struct Case {
    TorchBuild torch;
    const char* says;
  };
  TorchBuild conda = venv_torch("2.2.2", "12.1");
  conda.installer = "conda";
  TorchBuild distro = make_torch("2.5.1", "12.4"); // /usr/lib/python3/dist-packages, no INSTALLER
  for (const auto& c : {Case{venv_torch("2.1.0a0+32f93b1", "12.2"), "nightly, pre-release or source build"},
                        Case{venv_torch("2.8.0.dev20250529+cu128", "12.8"), "nightly"},
                        Case{venv_torch("2.9.0+rocmsdk20251116", std::nullopt, "7.1.52802"), "not a wheel"},
                        Case{conda, "conda package"}, Case{distro, "distribution package"},
                        Case{venv_torch("1.13.1+cu117", "11.7"), "no arch list for PyTorch 1.13 cu117"}}) {
    CAPTURE(c.torch.version);
    Facts f = nvidia_with(0x2b85, c.torch);
    Result r = arch_result(f);
    CHECK(r.status == Status::skip);
    CHECK(contains(r.message, c.says));
  }
}

TEST_CASE("torch.arch-missing: with probes, PyTorch's own list wins over the table") {
  // The table says 2.5.1+cu124 carries no sm_120; a build that lists it (a custom or patched wheel under the
  // same version) runs. The two disagree, and the probe's answer is the one reported.
  Facts f = nvidia_with(0x2b85, venv_torch("2.5.1+cu124", "12.4"));
  CHECK(arch_result(f).status == Status::error);
  FrameworkProbe fw;
  fw.python = "/home/ada/venv/bin/python3";
  fw.run.name = "torch";
  fw.run.key = "python-gpu";
  fw.run.run = fw.run.found = fw.run.ended = true;
  fw.run.exit_code = 0;
  fw.imported = true;
  fw.version = "2.5.1+cu124";
  fw.cuda = "12.4";
  fw.backend = "cuda";
  fw.available = true;
  fw.device_count = 1;
  fw.arch_list = {"sm_90", "sm_120"};
  FrameworkDevice d;
  d.index = 0;
  d.op_ok = true;
  fw.devices.push_back(d);
  f.probes.requested = true;
  f.probes.framework = fw;
  Result r = arch_result(f);
  CHECK(r.status == Status::pass);
  CHECK(contains(text::join(r.evidence, "\n"), "cmd python-gpu"));
}
