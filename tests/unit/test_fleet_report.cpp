// fleet/node_report: a report reads as the properties and results `fleet` and `diff` compare. The expected
// values are the machine's, as tests/machines/nvidia-h200-real/README.md describes it.
#include "fleet_fixtures.hpp"

#include <random>

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("fleet report: the real H200 report reads as versions, GPUs, variables and results") {
  std::string json = fixture_report("nvidia-h200-real");
  NodeReport n = read_report(json);
  CHECK(n.host == "vm");
  CHECK(n.tool_version == GPUDOCTOR_VERSION);
  CHECK(n.gpu_ids.starts_with("GPU-"));
  CHECK(property(n, "System", "OS") == "Ubuntu 24.04.3 LTS");
  CHECK(property(n, "System", "kernel").starts_with("6.18.44"));
  CHECK(property(n, "GPUs", "GPUs") == "1 × NVIDIA H200");
  CHECK(property(n, "GPUs", "bound to") == "1 × nvidia");
  CHECK(property(n, "GPUs", "PCIe links") == "1 × 32.0 GT/s PCIe x16");
  CHECK(property(n, "Driver", "NVIDIA kernel module") == "580.159.04 (open)");
  CHECK(property(n, "CUDA", "CUDA (driver)") == "13.0");
  CHECK(property(n, "CUDA", "CUDA toolkits") == "13.0.88 (/usr/local/cuda-13.0)");
  CHECK(property(n, "CUDA", "cuDNN").starts_with("9.14"));
  CHECK(property(n, "CUDA", "NCCL") == "2.28.3");
  CHECK(property(n, "ROCm", "ROCm") == "5.7.1 (dpkg:libamdhip64-5)");
  CHECK(property(n, "Python", "PyTorch · python3 (PATH)") == "2.11.0+cu130 CUDA 13.0");
  CHECK(property(n, "Python", "PyTorch · python3 (system)") == "not installed");
  // The GPU stack's distributions are compared across a fleet; the rest of pip's list is not.
  CHECK(property(n, "Python packages", "torchvision · python3 (PATH)") == "0.26.0");
  CHECK(property(n, "Python packages", "nvidia-nccl-cu13 · python3 (PATH)") == "2.28.9");
  CHECK(find_property(n, "Python packages", "requests · python3 (PATH)") == nullptr);
  CHECK(property(n, "Environment", "NCCL_VERSION") == "2.28.3-1");
  // No GPU by its address in a fleet: its UUID differs on every node.
  CHECK(find_property(n, "GPUs", "GPU 0000:00:06.0 UUID") == nullptr);

  JsonReader reader;
  auto root = reader.parse(json);
  REQUIRE(root.has_value());
  auto counts = n.counts();
  long long total = 0;
  for (const char* status : {"pass", "info", "warn", "error", "skip"})
    total += (*root)["summary"][status].integer().value_or(-1000);
  CHECK(n.results.size() == static_cast<std::size_t>(total));
  CHECK(counts[static_cast<int>(Status::pass)] == (*root)["summary"]["pass"].integer());
  CHECK(counts[static_cast<int>(Status::skip)] == (*root)["summary"]["skip"].integer());
  CHECK(counts[static_cast<int>(Status::info)] == 1);
}

TEST_CASE(
    "fleet report: with details (diff), every distribution, each GPU by address with its UUID, messages") {
  NodeReport n = read_report(fixture_report("nvidia-h200-real"), true);
  CHECK(property(n, "Python packages", "requests · python3 (PATH)") == "2.34.2");
  // Two site folders of the system python3 hold two pip versions: both are kept.
  CHECK(property(n, "Python packages", "pip · python3 (system)") == "24.0, 26.1.2");
  CHECK(property(n, "GPUs", "GPU 0000:00:06.0") ==
        "NVIDIA H200, driver nvidia, 32.0 GT/s PCIe x16");
  CHECK(property(n, "GPUs", "GPU 0000:00:06.0 UUID").starts_with("GPU-"));
  bool messages =
      std::all_of(n.results.begin(), n.results.end(), [](const NodeResult& r) { return !r.message.empty(); });
  CHECK(messages);
}

TEST_CASE("fleet report: what is not a gpudoctor report of format 1 is refused, with the reason") {
  JsonReader reader;
  auto read = [&](const std::string& json) {
    auto root = reader.parse(json);
    REQUIRE(root.has_value());
    return read_node_report(*root, ReadOptions{});
  };
  CHECK(read(R"({"format": "gpudoctor-snapshot", "version": 1})").error() == "not a gpudoctor report");
  CHECK(read(R"([1, 2])").error() == "not a gpudoctor report");
  CHECK(read(R"({"format": "gpudoctor-report"})").error().find("version") != std::string::npos);
  CHECK(read(R"({"format": "gpudoctor-report", "version": 2})").error() ==
        "report format 2 (this gpudoctor reads format 1)");
  // Fields of the wrong type read as absent; results that are not results are not counted.
  auto odd = read(R"({"format": "gpudoctor-report", "version": 1, "host": {"hostname": 7},
    "facts": {"gpus": {"not": "a list"}, "environment": {"gpu_variables": {"A": 1, "B": "", "C": "x"}}},
    "results": [{"id": "a", "status": "bogus"}, {"status": "pass"}, {"id": "b", "status": "warn"}, 3]})");
  REQUIRE(odd.has_value());
  CHECK(odd->host.empty());
  CHECK(odd->results.size() == 1);
  CHECK(property(*odd, "GPUs", "GPUs") == "none");
  CHECK(property(*odd, "Environment", "A") == "<absent>");
  CHECK(property(*odd, "Environment", "B") == ""); // set to "": not the same as unset
  CHECK(property(*odd, "Environment", "C") == "x");
}

TEST_CASE("fleet report: a report with bytes changed at random never crashes the reader") {
  std::string json = fixture_report("probe-amd-2gpu-no-p2p");
  std::size_t all = read_report(json).results.size();
  std::mt19937 rng(16);
  JsonReader reader;
  int read = 0;
  for (int i = 0; i < 400; ++i) {
    std::string copy = json;
    for (int k = 0; k < 4; ++k)
      copy[rng() % copy.size()] = static_cast<char>("{}[]\",:0a\\ \xff"[rng() % 12]);
    auto root = reader.parse(copy);
    if (!root) continue;
    auto node = read_node_report(*root, ReadOptions{true});
    if (!node) continue;
    ++read;
    CHECK(node->results.size() <= all); // a changed byte never invents a result
  }
  MESSAGE(read, " of 400 changed reports were still JSON reports");
}
