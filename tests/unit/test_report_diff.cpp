// fleet/report_diff: what changed on one machine, in facts and in conclusions.
#include "fleet/report_diff.hpp"
#include "fleet_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("diff: a report against itself changes nothing") {
  NodeReport n = read_report(fixture_report("nvidia-h200-real"), true);
  CHECK(diff_reports(n, n).empty());
}

TEST_CASE(
    "diff: versions, variables and packages that changed, appeared or went; results new, gone, changed") {
  NodeReport before = hand_node("n", "a.json",
                                {{"Driver", "NVIDIA kernel module", "570.86.15"},
                                 {"Environment", "NCCL_DEBUG", "INFO"},
                                 {"Python packages", "xformers · python3 (PATH)", "0.0.28"}},
                                {{"gpu.driver", "gpu0", Status::pass},
                                 {"env.nccl", "", Status::warn},
                                 {"tool.old", "", Status::info},
                                 {"same", "", Status::pass}});
  NodeReport after = hand_node("n", "b.json",
                               {{"Driver", "NVIDIA kernel module", "580.159.04"},
                                {"Environment", "NCCL_DEBUG", "INFO"},
                                {"Environment", "CUDA_VISIBLE_DEVICES", "0,1"}},
                               {{"gpu.driver", "gpu0", Status::error},
                                {"env.nccl", "", Status::warn},
                                {"cuda.new", "", Status::warn},
                                {"same", "", Status::pass}});
  ReportDiff d = diff_reports(before, after);
  REQUIRE(d.facts.size() == 3);
  CHECK(d.facts[0].name == "NVIDIA kernel module");
  CHECK(d.facts[0].before == "570.86.15");
  CHECK(d.facts[0].after == "580.159.04");
  CHECK(d.facts[1].name == "xformers · python3 (PATH)");
  CHECK(d.facts[1].after == std::nullopt);
  CHECK(d.facts[2].name == "CUDA_VISIBLE_DEVICES");
  CHECK(d.facts[2].before == std::nullopt);
  REQUIRE(d.results.size() == 3);
  // The worst now first: the error, then the new warning, then what is gone.
  CHECK(d.results[0].id == "gpu.driver");
  CHECK(d.results[0].before == Status::pass);
  CHECK(d.results[0].after == Status::error);
  CHECK(d.results[0].message == "gpu.driver message");
  CHECK(d.results[1].id == "cuda.new");
  CHECK(d.results[1].before == std::nullopt);
  CHECK(d.results[2].id == "tool.old");
  CHECK(d.results[2].after == std::nullopt);
}

TEST_CASE("diff: a group only one side can have (dpkg) is compared only when both have it") {
  NodeReport report = hand_node("n", "r.json", {{"Driver", "NVIDIA kernel module", "580"}});
  NodeReport judged = report;
  judged.properties.push_back({950, "System packages (dpkg)", "libnccl2", "2.28.3-1"});
  CHECK(diff_reports(report, judged).empty());
  NodeReport judged2 = judged;
  judged2.properties.back().value = "2.29.1-1";
  auto d = diff_reports(judged, judged2);
  REQUIRE(d.facts.size() == 1);
  CHECK(d.facts[0].group == "System packages (dpkg)");
}

TEST_CASE("diff: one machine is one host name with (where both list them) a GPU in common") {
  NodeReport a = hand_node("n", "a.json", {});
  NodeReport b = a;
  CHECK_FALSE(machine_mismatch(a, b));
  b.host = "m";
  CHECK(machine_mismatch(a, b) == "host \"n\" and host \"m\"");
  b.host = "n";
  a.gpu_ids = "GPU-1,GPU-2";
  CHECK_FALSE(machine_mismatch(a, b)); // one side lists no UUID: nothing to tell them apart by
  b.gpu_ids = "GPU-2,GPU-3";
  CHECK_FALSE(machine_mismatch(a, b)); // one GPU replaced
  b.gpu_ids = "GPU-3,GPU-4";
  CHECK(machine_mismatch(a, b) == "host \"n\" twice, but no NVIDIA GPU in common (2 and 2 GPU UUIDs)");
}
