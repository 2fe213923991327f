// probe --if-idle (docs/fleet.md, "Probe figures"): which GPUs are at work, and why.
#include "app/probe_idle.hpp"
#include "check_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("probe --if-idle: a compute process, utilization or amdgpu's busy percent keeps a GPU busy") {
  Facts f = nvidia_machine(3);
  for (std::size_t i = 0; i < 3; ++i) {
    f.nvidia.smi_gpus[i].bdf = f.gpus[i].bdf; // the join collect/link_facts makes
    f.nvidia.smi_gpus[i].compute_processes = 0;
    f.nvidia.smi_gpus[i].gpu_utilization = 0;
  }
  CHECK(busy_gpus(f).empty());
  f.nvidia.smi_gpus[0].compute_processes = 2; // a training job
  f.nvidia.smi_gpus[1].gpu_utilization = 95;  // a container's job: its processes are not listed here
  f.nvidia.smi_gpus[2].gpu_utilization = k_busy_percent; // a desktop's compositor: not busy
  auto busy = busy_gpus(f);
  REQUIRE(busy.size() == 2);
  CHECK(busy[0] == f.gpus[0].subject() + ": 2 compute processes");
  CHECK(busy[1] == f.gpus[1].subject() + ": 95 % utilization");

  Facts amd = amd_machine();
  CHECK(busy_gpus(amd).empty()); // nothing read: not known busy
  amd.gpus[0].sensors.busy_percent = 60;
  REQUIRE(busy_gpus(amd).size() == 1);
  CHECK(busy_gpus(amd)[0].ends_with(": 60 % busy"));
}
