// The fix inventory is a collector (issue 14): its result is part of Facts and of the report's facts when the
// stack tables are given (fix, migrate, bundle), so a bundle's report.json holds what fix and migrate plan
// with; `check` gives none, and neither takes the inventory nor reads what only the inventory reads.
#include "collect/collectors.hpp"
#include "collect/container_config.hpp"
#include "facts/facts_json.hpp"
#include "fix_fixtures.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

bool was_read(const MemView& view, const std::string& path) {
  return std::find(view.reads.begin(), view.reads.end(), path) != view.reads.end();
}

// A Debian machine with a ROCm package held by apt, a user, and NVIDIA's runtime in Docker's configuration.
void add_debian_with_stacks(MemView& view, const std::string& daemon_json) {
  view.files["/etc/os-release"] = "ID=debian\nVERSION_ID=\"12\"\n";
  view.files["/var/lib/dpkg/status"] = "Package: rocm-core\nStatus: hold ok installed\nVersion: 6.2.4\n\n"
                                       "Package: bash\nStatus: install ok installed\nVersion: 5.2\n\n";
  view.files["/var/lib/apt/extended_states"] = "Package: rocm-core\nAuto-Installed: 0\n";
  view.files["/etc/passwd"] = "root:x:0:0:root:/root:/bin/bash\nravi:x:1000:1000::/home/ravi:/bin/bash\n";
  view.dirs.insert("/home/ravi");
  view.files["/etc/docker/daemon.json"] = daemon_json;
}

const std::string k_daemon_json =
    R"({"default-runtime": "nvidia", "runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}})";

} // namespace

TEST_CASE("collect inventory: with the stack tables, the facts and the report's facts carry it") {
  MemView view;
  add_debian_with_stacks(view, k_daemon_json);
  CollectOptions opt;
  opt.stacks = &stacks();
  Facts facts = collect_all(view, kb(), opt);
  REQUIRE(facts.inventory.has_value());
  CHECK(facts.inventory->amd.packages == std::vector<std::string>{"rocm-core"});
  CHECK(facts.inventory->amd.held == std::vector<std::string>{"rocm-core"});
  CHECK(facts.inventory->homes == std::vector<std::string>{"/home/ravi"});
  CHECK(was_read(view, "/var/lib/apt/extended_states"));

  Json j = facts_to_json(facts);
  REQUIRE(j.contains("inventory"));
  const Json& inv = j["inventory"];
  CHECK(inv["amd"]["packages"] == Json::array({"rocm-core"}));
  CHECK(inv["amd"]["held"] == Json::array({"rocm-core"}));
  CHECK(inv["nvidia"]["packages"] == Json::array());
  CHECK(inv["homes"] == Json::array({"/home/ravi"}));
  // The edit of daemon.json as the three parts a script takes, not a flat list.
  REQUIRE(inv["nvidia"]["container_edits"].size() == 1);
  const Json& edit = inv["nvidia"]["container_edits"][0];
  CHECK(edit["file"] == "/etc/docker/daemon.json");
  CHECK(edit["before_base64"] == base64(k_daemon_json));
  CHECK(edit["after_base64"] == base64(*docker_without_nvidia(k_daemon_json)));
}

TEST_CASE("collect inventory: without the stack tables (check) it is not taken, not in the JSON, not read") {
  MemView view;
  add_debian_with_stacks(view, k_daemon_json);
  Facts facts = collect_all(view, kb(), CollectOptions{});
  CHECK_FALSE(facts.inventory.has_value());
  CHECK_FALSE(facts_to_json(facts).contains("inventory"));
  // What only the inventory reads is not read by check: the cost stays with fix, migrate and bundle.
  for (const char* path :
       {"/var/lib/apt/extended_states", "/etc/passwd", "/etc/dnf/plugins/versionlock.list"})
    CHECK_MESSAGE(!was_read(view, path), path);
}

TEST_CASE(
    "collect inventory: a machine fixture judged as check does has no inventory; as fix does, the lists") {
  Report checked = judged_machine("amd-to-nvidia-leftovers");
  CHECK_FALSE(checked.facts.inventory.has_value());
  CHECK_FALSE(report_to_json(checked)["facts"].contains("inventory"));

  auto opened = OpenedSnapshot::open(machine_dir("amd-to-nvidia-leftovers") / "snapshot");
  REQUIRE(opened.has_value());
  Report fixing = judged_by((*opened)->view(), CheckOptions{}, &stacks());
  REQUIRE(fixing.facts.inventory.has_value());
  Json inv = report_to_json(fixing)["facts"]["inventory"];
  CHECK(inv["amd"]["packages"] == Json::array({"hip-runtime-amd", "rocm-core", "rocminfo"}));
  CHECK(inv["amd"]["config_packages"] == Json::array({"amdgpu-dkms"}));
  CHECK(inv["amd"]["alternatives"] == Json::array({"rocm"}));
  // The same results as check: taking the inventory changes no conclusion.
  REQUIRE(fixing.results.size() == checked.results.size());
  for (std::size_t i = 0; i < fixing.results.size(); ++i)
    CHECK(fixing.results[i].status == checked.results[i].status);
}
