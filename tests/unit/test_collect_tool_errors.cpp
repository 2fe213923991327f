// A vendor tool's failure named by knowledge tool_errors.yaml, whatever its exit status (issue 26 item 2).
#include "check_fixtures.hpp"
#include "test_parse_util.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

ToolRun run_of(const std::string& key, const std::string& program, int exit_code, std::string output) {
  ToolRun t = make_tool(key, program);
  t.exit_code = exit_code;
  t.output = std::move(output);
  return t;
}

Facts linked_with(ToolRun t) {
  Facts f = amd_machine();
  f.tools.push_back(std::move(t));
  return linked(f);
}

} // namespace

TEST_CASE("tool errors: rocminfo's lines, the most telling first, every one as evidence") {
  SUBCASE("not in the render group") {
    Facts f = linked_with(run_of("rocminfo", "rocminfo", 1,
                                 realdata("rocminfo-fail-kfd-permission-denied-not-in-render-1.txt")));
    const ToolRun& t = f.tools.back();
    CHECK(t.failure == "Unable to open /dev/kfd read-write: Permission denied");
    REQUIRE(t.evidence_lines.size() == 2);
    CHECK(t.evidence_lines[1].starts_with("navin is not member of \"render\" group"));
    CHECK(contains(t.known_error, "cannot open the KFD device"));
    REQUIRE(f.amd.rocminfo_failure);
    CHECK(*f.amd.rocminfo_failure == t.failure);
  }
  SUBCASE("no KFD: the module line wins over the HSA error after it") {
    Facts f = linked_with(
        run_of("rocminfo", "rocminfo", 8, realdata("rocminfo-fail-rock-not-loaded-no-kfd-1.txt")));
    const ToolRun& t = f.tools.back();
    CHECK(t.failure == "ROCk module is NOT loaded, possibly no GPU devices");
    REQUIRE(t.evidence_lines.size() == 4); // "username is member of video group" is not a failure
    CHECK(t.evidence_lines[1] == "Unable to open /dev/kfd read-write: No such file or directory");
    CHECK(t.evidence_lines[3].starts_with("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES"));
  }
  SUBCASE("WSL2") {
    Facts f =
        linked_with(run_of("rocminfo", "rocminfo", 1, realdata("rocminfo-fail-rock-not-loaded-wsl2-1.txt")));
    const ToolRun& t = f.tools.back();
    CHECK(t.failure == "ROCk module is NOT loaded, possibly no GPU devices");
    REQUIRE(t.evidence_lines.size() == 5);
    CHECK(t.evidence_lines[2] == "Failed to get user name to check for video group membership");
  }
  SUBCASE("a healthy rocminfo names nothing") {
    for (const char* ok : {"rocminfo-gfx1100-rx7900xtx-1.txt", "rocminfo-gfx1030-rx6800xt-igpu-gfx1036-1.txt",
                           "rocminfo-gfx942-mi300x-vf-1.txt"}) {
      CAPTURE(ok);
      Facts f = linked_with(run_of("rocminfo", "rocminfo", 0, realdata(ok)));
      CHECK(f.tools.back().failure.empty());
      CHECK_FALSE(f.amd.rocminfo_failure);
    }
  }
}

TEST_CASE("tool errors: a failure with exit status 0 is reported (ROCm/ROCm#5942)") {
  ToolRun t = run_of("rocminfo", "rocminfo", 0,
                     slurp(data_path("parse/rocminfo-fail-hsa-error-exit0-rx7800xt-rx580-1.txt")));
  Facts f = amd_machine();
  f.tools.push_back(t);
  auto r = single(run_check("tool.failed", f));
  expect_fired(r, Status::info, "rocminfo",
               {"Call returned HSA_STATUS_ERROR: A generic error has occurred.", "exited with status 0",
                "the ROCm runtime failed to start"},
               {});
  REQUIRE(r.evidence.size() == 3);
  CHECK(r.evidence[0] == "cmd rocminfo: exit 0");
  CHECK(r.evidence[1].starts_with("cmd rocminfo: hsa api call failure at: "));
}

TEST_CASE("tool errors: nvidia-smi reads the GPUs it can and names one it cannot, exit status 0") {
  std::string output = realdata("nvidia-smi-default-h200-8gpu-1.txt") +
                       slurp(data_path("parse/nvidia-smi-device-handle-unknown-error-1.txt"));
  Facts f = nvidia_machine();
  f.tools.push_back(run_of("nvidia-smi", "nvidia-smi", 0, output));
  auto r = single(run_check("tool.failed", f));
  expect_fired(r, Status::info, "nvidia-smi",
               {"Unable to determine the device handle for GPU0000:65:00.0: Unknown Error",
                "cannot reach this GPU although it reads the others", "exited with status 0"},
               {});
  SUBCASE("the same table alone names nothing") {
    Facts ok = nvidia_machine();
    ok.tools.push_back(run_of("nvidia-smi", "nvidia-smi", 0, realdata("nvidia-smi-default-h200-8gpu-1.txt")));
    expect_quiet(single(run_check("tool.failed", ok)), Status::pass);
  }
  SUBCASE("the table's lines are the tool's own: another program printing them is not judged") {
    Facts other = nvidia_machine();
    other.tools.push_back(run_of("python-env@python3", "python3", 0, output));
    expect_quiet(single(run_check("tool.failed", other)), Status::pass);
  }
  SUBCASE("a known mismatch keeps its line, now with its meaning") {
    Facts m = nvidia_machine();
    m.tools.push_back(
        run_of("nvidia-smi-xml", "/usr/bin/nvidia-smi", 18, realdata("nvidia-smi-fail-nvml-mismatch-2.txt")));
    auto mr = single(run_check("tool.failed", m));
    expect_fired(mr, Status::info, "/usr/bin/nvidia-smi",
                 {"Failed to initialize NVML: Driver/library version mismatch", "of different versions"}, {});
    CHECK_FALSE(contains(mr.message, "status 0"));
  }
}

TEST_CASE("tool errors: every row of the table is matched by its own line, and ranks hold") {
  for (const auto& row : kb().tool_errors) {
    CAPTURE(row.tool);
    CAPTURE(row.line);
    Facts f = linked_with(run_of("k", row.tool, 0, "first line\n  " + row.line + " and more\nlast\n"));
    CHECK(f.tools.back().known_error == row.meaning);
    CHECK(contains(f.tools.back().failure, row.line));
    CHECK_FALSE(row.source.empty());
  }
}
