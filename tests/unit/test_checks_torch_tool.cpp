// torch.missing, torch.cpu-build, torch.vendor-mismatch, tool.timeout, tool.failed
#include "check_fixtures.hpp"

#include <set>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// Three interpreters: the venv first on PATH (CPU wheel), conda (CUDA wheel), the system one (no torch).
void add_three_pythons(Facts& f) {
  f.python.envs.push_back(make_python(
      "VIRTUAL_ENV", "/home/alice/venv/bin/python3",
      make_torch("2.6.0+cpu", std::nullopt, std::nullopt, "/home/alice/venv/lib/python3.12/site-packages")));
  f.python.envs.push_back(make_python(
      "CONDA_PREFIX", "/opt/conda/bin/python3",
      make_torch("2.6.0+cu124", "12.4", std::nullopt, "/opt/conda/lib/python3.12/site-packages")));
  f.python.envs.push_back(make_python("system", "/usr/bin/python3"));
}

std::set<std::string> subjects(const std::vector<Result>& results) {
  std::set<std::string> out;
  for (const auto& r : results)
    out.insert(r.subject);
  return out;
}

} // namespace

TEST_CASE("check: torch.missing, one result per python3") {
  Facts f = nvidia_machine();
  add_three_pythons(f);
  auto results = run_check("torch.missing", f);
  REQUIRE(results.size() == 3);
  CHECK(subjects(results).size() == 3);
  expect_quiet(results[0], Status::pass, "python3 (VIRTUAL_ENV: /home/alice/venv/bin/python3)");
  CHECK(contains(results[0].message, "2.6.0+cpu"));
  CHECK(contains(results[0].message, "CPU-only"));
  expect_quiet(results[1], Status::pass, "python3 (CONDA_PREFIX: /opt/conda/bin/python3)");
  CHECK(contains(results[1].message, "CUDA 12.4"));
  // The python3 in use has PyTorch: the system one without it is the usual venv setup.
  expect_quiet(results[2], Status::pass, "python3 (system: /usr/bin/python3)");
  CHECK(contains(results[2].message, "the python3 in use (/home/alice/venv/bin/python3) has it"));

  SUBCASE("the python3 in use has no PyTorch: info, even where another python3 has it") {
    f.python.envs[0].torch.reset();
    auto again = run_check("torch.missing", f);
    expect_fired(again[0], Status::info, "python3 (VIRTUAL_ENV: /home/alice/venv/bin/python3)",
                 {"Python 3.12.3", "no PyTorch"}, {});
    CHECK(contains(again[0].evidence.front(), "3 sys.path entries"));
    expect_fired(again[2], Status::info, "python3 (system: /usr/bin/python3)", {"no PyTorch"}, {});
  }

  SUBCASE("a python3 that could not be asked: skip") {
    f.python.envs[2].error = "exit 127";
    auto again = run_check("torch.missing", f);
    expect_quiet(again[2], Status::skip, "python3 (system: /usr/bin/python3)");
    CHECK(contains(again[2].message, "exit 127"));
  }
  SUBCASE("no python3: skip") {
    expect_quiet(single(run_check("torch.missing", nvidia_machine())), Status::skip);
  }
}

TEST_CASE("check: torch.cpu-build") {
  SUBCASE("CPU wheel on a usable NVIDIA GPU, beside a good CUDA wheel") {
    Facts f = nvidia_machine();
    add_three_pythons(f);
    auto results = run_check("torch.cpu-build", f);
    REQUIRE(results.size() == 2); // the system python3 has no torch
    CHECK(subjects(results).size() == 2);
    expect_fired(results[0], Status::error, "python3 (VIRTUAL_ENV: /home/alice/venv/bin/python3)",
                 {"2.6.0+cpu", "CPU-only", "NVIDIA", "CUDA wheel index"}, {"torch-reinstall"});
    CHECK(contains(results[0].evidence.front(), "venv/lib/python3.12/site-packages/torch/version.py"));
    CHECK(contains(results[0].evidence.front(), "cuda None, hip None"));
    expect_quiet(results[1], Status::pass, "python3 (CONDA_PREFIX: /opt/conda/bin/python3)");
  }
  SUBCASE("CPU wheel on a usable AMD GPU: ROCm index") {
    Facts f = amd_machine();
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1")));
    auto r = single(run_check("torch.cpu-build", f));
    expect_fired(r, Status::error, "python3 (PATH: /usr/bin/python3)", {"2.5.1", "AMD", "ROCm wheel index"},
                 {"torch-reinstall"});
  }
  SUBCASE("CPU wheel where no GPU is usable (no driver bound): pass") {
    Facts f = nvidia_machine(1, "");
    f.gpus[0].driver = {};
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1")));
    expect_quiet(single(run_check("torch.cpu-build", f)), Status::pass, "python3 (PATH: /usr/bin/python3)");
  }
  SUBCASE("no torch anywhere: skip") {
    Facts f = nvidia_machine();
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3"));
    expect_quiet(single(run_check("torch.cpu-build", f)), Status::skip);
  }
}

TEST_CASE("check: torch.vendor-mismatch") {
  SUBCASE("CUDA wheel on an AMD-only machine") {
    Facts f = amd_machine();
    add_three_pythons(f);
    auto results = run_check("torch.vendor-mismatch", f);
    REQUIRE(results.size() == 1); // CPU builds and missing torch are other checks' business
    expect_fired(results[0], Status::error, "python3 (CONDA_PREFIX: /opt/conda/bin/python3)",
                 {"2.6.0+cu124", "CUDA 12.4", "only AMD GPUs", "ROCm wheel index"}, {"torch-reinstall"});
  }
  SUBCASE("ROCm wheel on an NVIDIA-only machine") {
    Facts f = nvidia_machine();
    f.python.envs.push_back(
        make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+rocm6.2.4", std::nullopt, "6.2.41134")));
    auto r = single(run_check("torch.vendor-mismatch", f));
    expect_fired(r, Status::error, "python3 (PATH: /usr/bin/python3)",
                 {"2.6.0+rocm6.2.4", "HIP 6.2.41134", "only NVIDIA GPUs", "CUDA wheel index"},
                 {"torch-reinstall"});
  }
  SUBCASE("several environments, each judged on its own") {
    Facts f = amd_machine();
    f.python.envs.push_back(
        make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+rocm6.2.4", std::nullopt, "6.2.41134")));
    f.python.envs.push_back(
        make_python("CONDA_PREFIX", "/opt/conda/bin/python3", make_torch("2.6.0+cu124", "12.4")));
    auto results = run_check("torch.vendor-mismatch", f);
    REQUIRE(results.size() == 2);
    CHECK(subjects(results).size() == 2);
    expect_quiet(results[0], Status::pass, "python3 (PATH: /usr/bin/python3)");
    CHECK(results[1].status == Status::error);
    CHECK(results[1].subject == "python3 (CONDA_PREFIX: /opt/conda/bin/python3)");
  }
  SUBCASE("either wheel on a machine with both vendors: pass") {
    Facts f = nvidia_machine();
    f.gpus.push_back(make_amd_gpu(1));
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.6.0+cu124", "12.4")));
    expect_quiet(single(run_check("torch.vendor-mismatch", f)), Status::pass,
                 "python3 (PATH: /usr/bin/python3)");
  }
  SUBCASE("only CPU builds: skip") {
    Facts f = amd_machine();
    f.python.envs.push_back(make_python("PATH", "/usr/bin/python3", make_torch("2.5.1")));
    expect_quiet(single(run_check("torch.vendor-mismatch", f)), Status::skip);
  }
}

TEST_CASE("check: tool.timeout") {
  Facts f = nvidia_machine();
  ToolRun smi = make_tool("nvidia-smi-xml", "nvidia-smi");
  smi.timed_out = true;
  smi.exit_code.reset();
  smi.duration_ms = 5003;
  f.tools.push_back(smi);
  f.tools.push_back(make_tool("nvcc-version", "nvcc"));
  auto r = single(run_check("tool.timeout", f));
  expect_fired(r, Status::warn, "nvidia-smi", {"nvidia-smi", "5000 ms"}, {});
  CHECK(r.evidence.front() == "cmd nvidia-smi-xml: killed at its time limit after 5003 ms");

  SUBCASE("every tool finished: pass") {
    f.tools.front().timed_out = false;
    expect_quiet(single(run_check("tool.timeout", f)), Status::pass);
  }
  SUBCASE("killed, it did not end (a wedged driver): said, and left") {
    f.tools.front().unkillable = true;
    auto u = single(run_check("tool.timeout", f));
    expect_fired(u, Status::warn, "nvidia-smi", {"5000 ms", "did not end when killed", "still running"}, {});
    CHECK(u.evidence.back() == "cmd nvidia-smi-xml: still there after SIGKILL (unkillable)");
  }
  SUBCASE("it exited, but what it started did not end when killed") {
    f.tools.front().timed_out = false;
    f.tools.front().exit_code = 0;
    f.tools.front().unkillable = true;
    auto u = single(run_check("tool.timeout", f));
    expect_fired(u, Status::warn, "nvidia-smi", {"finished", "did not end when killed"}, {});
    CHECK(u.evidence.front() == "cmd nvidia-smi-xml: exit 0");
  }
}

TEST_CASE("check: tool.failed") {
  Facts f = amd_machine();
  ToolRun rocminfo = make_tool("rocminfo", "rocminfo");
  rocminfo.exit_code = 1;
  rocminfo.failure = "ROCk module is NOT loaded, possibly no GPU devices";
  SUBCASE("the message is the evidence") {
    f.tools.push_back(rocminfo);
    auto r = single(run_check("tool.failed", f));
    expect_fired(r, Status::info, "rocminfo", {"rocminfo failed", "ROCk module is NOT loaded"}, {});
    REQUIRE(r.evidence.size() == 2);
    CHECK(r.evidence[0] == "cmd rocminfo: exit 1");
    CHECK(r.evidence[1] == "cmd rocminfo: ROCk module is NOT loaded, possibly no GPU devices");
  }
  SUBCASE("evidence lines when the collector kept them") {
    rocminfo.evidence_lines = {"ROCk module is NOT loaded, possibly no GPU devices",
                               "hsa api call failure at: 1"};
    f.tools.push_back(rocminfo);
    auto r = single(run_check("tool.failed", f));
    CHECK(r.evidence.size() == 3);
    CHECK(r.evidence[2] == "cmd rocminfo: hsa api call failure at: 1");
  }
  SUBCASE("killed by a signal") {
    rocminfo.exit_code.reset();
    f.tools.push_back(rocminfo);
    CHECK(single(run_check("tool.failed", f)).evidence[0] == "cmd rocminfo: exit (signal)");
  }
  SUBCASE("not installed, timed out (tool.timeout's), or failing without a message: pass") {
    ToolRun missing = make_tool("amd-smi", "amd-smi");
    missing.found = false;
    missing.failure = "not found";
    ToolRun hung = rocminfo;
    hung.timed_out = true;
    ToolRun quiet = make_tool("nvcc-version", "nvcc");
    quiet.exit_code = 1;
    f.tools = {missing, hung, quiet};
    expect_quiet(single(run_check("tool.failed", f)), Status::pass);
  }
  SUBCASE("two failing tools: two results") {
    ToolRun smi = make_tool("nvidia-smi-xml", "nvidia-smi");
    smi.exit_code = 9;
    smi.failure = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver";
    f.tools = {rocminfo, smi};
    auto results = run_check("tool.failed", f);
    REQUIRE(results.size() == 2);
    CHECK(subjects(results) == std::set<std::string>{"rocminfo", "nvidia-smi"});
  }
}
