// The probe checks (probe.*) and the framework probe checks (torch.arch-missing, torch.no-device) as pure
// functions of facts: probe outputs are given as the JSON lines the probes print.
#include "check_fixtures.hpp"
#include "checks/probe_common.hpp"
#include "probe/probe_parse.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

const char* const k_probe_ids[] = {"probe.runtime-devices", "probe.kernel",       "probe.memory-bandwidth",
                                   "probe.host-bandwidth",  "probe.p2p",          "probe.alloc",
                                   "probe.timeout",         "torch.arch-missing", "torch.no-device"};

// One probe line: {"probe":..., "event":..., fields...} as the probes print it (compact, in this order).
std::string line(const std::string& probe, const std::string& event, const Json& fields = Json::object()) {
  Json j = {{"probe", probe}, {"event", event}};
  for (const auto& [k, v] : fields.items())
    j[k] = v;
  return j.dump();
}

std::string device_line(int index, const std::string& bus) {
  return line("devices", "device",
              {{"index", index},
               {"name", "NVIDIA H100 80GB HBM3"},
               {"arch", "sm_90"},
               {"pci_bus_id", bus},
               {"memory_bytes", 85045231616LL},
               {"multiprocessors", 132},
               {"l2_bytes", 52428800},
               {"memory_bus_bits", 5120},
               {"memory_clock_khz", 2619000},
               {"integrated", false}});
}

std::string error_line(long long code, const std::string& name, const std::string& message) {
  return line("devices", "error",
              {{"call", "cudaGetDeviceCount"}, {"code", code}, {"error", name}, {"message", message}});
}

const char* const k_insufficient = "CUDA driver version is insufficient for CUDA runtime version";

std::string bandwidth_line(const std::string& probe, const std::string& test, double best,
                           bool verified = true, long long mismatches = 0) {
  return line(probe, "bandwidth",
              {{"device", 0},
               {"test", test},
               {"bytes", 134217728},
               {"iterations", 8},
               {"best_gbps", best},
               {"median_gbps", best * 0.99},
               {"verified", verified},
               {"mismatches", mismatches}});
}

std::string start(const std::string& probe, int count, long long driver = 12080, long long runtime = 12080) {
  return line(probe, "start",
              {{"format", 1},
               {"backend", "cuda"},
               {"targets", "sm_80 sm_90"},
               {"driver_version", driver},
               {"runtime_version", runtime}}) +
         "\n" + line(probe, "count", {{"count", count}});
}

// A runtime whose probes printed `outputs` (probe name -> stdout), each run to its end.
BackendProbes backend(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& outputs) {
  BackendProbes b;
  b.backend = name;
  b.how = "built with gpudoctor (test)";
  for (const auto& [probe, text] : outputs) {
    ProbeRun run;
    run.name = probe;
    run.key = "probe-" + probe + "@" + name;
    run.run = run.found = true;
    run.exit_code = 0;
    run.duration_ms = 100;
    run.timeout_ms = 30000;
    probe::read_probe_output(text + "\n" + line(probe, "end", {{"ms", 1}}), run, b);
    b.runs.push_back(run);
  }
  return b;
}

// Facts of an NVIDIA machine with `n` H100s whose CUDA probes printed `outputs` after a devices probe that
// saw all of them (unless `outputs` has its own devices output).
Facts with_probes(int n, std::vector<std::pair<std::string, std::string>> outputs) {
  Facts f = nvidia_machine(n);
  for (auto& gpu : f.gpus) {
    gpu.link_speed_max = "32.0 GT/s PCIe";
    gpu.link_width_max = 16;
  }
  bool has_devices = false;
  for (const auto& o : outputs)
    has_devices = has_devices || o.first == "devices";
  if (!has_devices) {
    std::string devices = start("devices", n);
    for (int i = 0; i < n; ++i)
      devices += "\n" + device_line(i, f.gpus[static_cast<std::size_t>(i)].bdf);
    outputs.insert(outputs.begin(), {"devices", devices});
  }
  f.probes.requested = true;
  f.probes.backends.push_back(backend("cuda", outputs));
  return f;
}

Status status_of(const std::vector<Result>& results, const std::string& subject) {
  auto r = for_subject(results, subject);
  REQUIRE_MESSAGE(r.has_value(), "no result for " << subject);
  return r->status;
}

bool evidence_has(const Result& r, const std::string& part) {
  for (const auto& e : r.evidence)
    if (contains(e, part)) return true;
  return false;
}

} // namespace

TEST_CASE("probe checks: without --probes every probe check skips and says how to run them") {
  Facts f = nvidia_machine();
  for (const char* id : k_probe_ids) {
    CAPTURE(id);
    Result r = single(run_check(id, f));
    CHECK(r.status == Status::skip);
  }
  CHECK(contains(single(run_check("probe.kernel", f)).message, "--probes"));
}

TEST_CASE("probe.runtime-devices") {
  SUBCASE("no GPU, no driver: info with the runtime's words") {
    Facts f;
    f.probes.requested = true;
    f.probes.backends.push_back(backend(
        "cuda", {{"devices", line("devices", "start",
                                  {{"format", 1},
                                   {"backend", "cuda"},
                                   {"targets", ""},
                                   {"driver_version", 0},
                                   {"runtime_version", 13000}}) +
                                 "\n" + error_line(35, "cudaErrorInsufficientDriver", k_insufficient)}}));
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(r.status == Status::info);
    CHECK(r.subject == "CUDA runtime");
    CHECK(evidence_has(r, "cudaErrorInsufficientDriver: CUDA driver version is insufficient"));
    // With no GPU at all, "Runtime sees fewer GPUs than the PCI bus holds" would be false.
    CHECK(r.title == "The CUDA runtime on a machine without its GPUs");
    SUBCASE("the other vendor's GPUs are here: nothing for this runtime to find, skip") {
      Facts amd = f;
      amd.gpus.push_back(make_amd_gpu(0));
      Result s = single(run_check("probe.runtime-devices", amd));
      CHECK(s.status == Status::skip);
      CHECK(contains(s.message, "there is no NVIDIA GPU with its driver on the PCI bus"));
    }
    // The other probes were not run and, without an NVIDIA GPU, have nothing to say.
    f.probes.backends[0].runs.push_back([] {
      ProbeRun r2;
      r2.name = "kernel";
      r2.key = "probe-kernel@cuda";
      r2.not_run = k_probe_no_device;
      return r2;
    }());
    Result k = single(run_check("probe.kernel", f));
    CHECK(k.status == Status::skip);
    CHECK(contains(k.message, "no GPU to probe"));
  }
  SUBCASE("all GPUs seen: pass") {
    auto results = run_check("probe.runtime-devices", with_probes(2, {}));
    CHECK(status_of(results, "CUDA runtime") == Status::pass);
  }
  SUBCASE("one of two GPUs missing: error naming it") {
    Facts base = nvidia_machine(2);
    Facts f = with_probes(2, {{"devices", start("devices", 1) + "\n" + device_line(0, base.gpus[0].bdf)}});
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(r.status == Status::error);
    CHECK(r.title == "Runtime sees fewer GPUs than the PCI bus holds");
    CHECK(contains(r.message, "sees 1 of the 2 NVIDIA GPUs"));
    CHECK(contains(r.message, "missing: gpu1"));
    SUBCASE("explained by CUDA_VISIBLE_DEVICES: info") {
      set_env(f, "CUDA_VISIBLE_DEVICES", "0");
      Result v = single(run_check("probe.runtime-devices", f));
      CHECK(v.status == Status::info);
      CHECK(evidence_has(v, "env CUDA_VISIBLE_DEVICES=0"));
      CHECK(v.title == "A device-selection variable hides GPUs from the runtime");
    }
  }
  SUBCASE("--gpus showed the runtime one of four GPUs: it must see that one, not all four") {
    Facts base = nvidia_machine(4);
    Facts f = with_probes(4, {{"devices", start("devices", 1) + "\n" + device_line(0, base.gpus[2].bdf)}});
    Result missing = single(run_check("probe.runtime-devices", f));
    CHECK(missing.status == Status::error); // without the selection: three GPUs are missing
    f.probes.chosen_gpus = {base.gpus[2].bdf};
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(r.status == Status::pass);
    CHECK(contains(r.message, "sees the 1 NVIDIA GPU chosen with --gpus"));
    f.probes.chosen_gpus = {base.gpus[1].bdf, base.gpus[2].bdf};
    Result one = single(run_check("probe.runtime-devices", f));
    CHECK(one.status == Status::error);
    CHECK(contains(one.message, "sees 1 of the 2 NVIDIA GPUs chosen with --gpus"));
    CHECK(contains(one.message, "missing: gpu1"));
  }
  SUBCASE("the runtime cannot count: error with its error") {
    Facts f = with_probes(
        1, {{"devices", error_line(803, "cudaErrorSystemDriverMismatch",
                                   "system has unsupported display driver / cuda driver combination")}});
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "cudaErrorSystemDriverMismatch"));
  }
  SUBCASE("probes built for a newer CUDA than the driver runs: cannot judge") {
    Facts f =
        with_probes(1, {{"devices", start("devices", 0, 12040, 13000) + "\n" +
                                        error_line(35, "cudaErrorInsufficientDriver", k_insufficient)}});
    f.probes.backends[0].device_count.reset();
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(r.status == Status::skip);
    CHECK(contains(r.message, "built with CUDA 13.0, newer than this driver runs (CUDA 12.4)"));
  }
  SUBCASE("the devices probe crashed with a GPU present: error") {
    Facts f = with_probes(1, {});
    f.probes.backends[0].runs[0].exit_code.reset();
    f.probes.backends[0].runs[0].stderr_tail = "Segmentation fault";
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "crashed"));
  }
  SUBCASE("root would not run the probe program: says why, not that it is missing") {
    Facts f = with_probes(1, {});
    auto& run = f.probes.backends[0].runs[0];
    run.found = false;
    run.exit_code = 127;
    run.ended = false;
    run.untrusted = "/tmp/b/gpudoctor-probe-cuda (/tmp is writable by others)";
    Result r = single(run_check("probe.runtime-devices", f));
    CHECK(contains(r.message, "another user could change /tmp/b/gpudoctor-probe-cuda (/tmp is writable by "
                              "others), and root runs no such program"));
    CHECK_FALSE(contains(r.message, "missing"));
  }
}

TEST_CASE("probe.kernel") {
  Facts f = with_probes(
      2, {{"kernel",
           line("kernel", "kernel", {{"device", 0}, {"ok", true}, {"elements", 4194304}, {"mismatches", 0}}) +
               "\n" +
               line("kernel", "kernel",
                    {{"device", 1},
                     {"ok", false},
                     {"stage", "image"},
                     {"code", 209},
                     {"error", "cudaErrorNoKernelImageForDevice"},
                     {"message", "no kernel image is available for execution on the device"}})}});
  auto results = run_check("probe.kernel", f);
  CHECK(status_of(results, f.gpus[0].subject()) == Status::pass);
  auto bad = for_subject(results, f.gpus[1].subject());
  REQUIRE(bad.has_value());
  CHECK(bad->status == Status::error);
  CHECK(contains(bad->message, "cudaErrorNoKernelImageForDevice"));
  CHECK(contains(bad->message, "sm_90"));
  CHECK(contains(bad->message, "built for sm_80 sm_90"));
  CHECK(bad->fixes.empty()); // CUDA: nothing in the environment explains it

  SUBCASE("HIP with HSA_OVERRIDE_GFX_VERSION set: the fix that unsets it is named") {
    Facts h = f;
    h.probes.backends[0].backend = "hip";
    set_env(h, "HSA_OVERRIDE_GFX_VERSION", "9.4.2");
    auto hip = run_check("probe.kernel", h);
    auto it = std::find_if(hip.begin(), hip.end(), [](const Result& r) { return r.status == Status::error; });
    REQUIRE(it != hip.end());
    CHECK(it->fixes == std::vector<std::string>{"env-unset-hsa-override"});
    CHECK(evidence_has(*it, "env HSA_OVERRIDE_GFX_VERSION=9.4.2"));
  }

  SUBCASE("wrong values") {
    Facts g = with_probes(1, {{"kernel", line("kernel", "kernel",
                                              {{"device", 0},
                                               {"ok", false},
                                               {"elements", 4194304},
                                               {"mismatches", 17},
                                               {"stage", "verify"},
                                               {"first_mismatch", 3}})}});
    Result r = single(run_check("probe.kernel", g));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "17 wrong values"));
  }
}

TEST_CASE("probe.memory-bandwidth against the knowledge floor") {
  auto measured = [](double copy) {
    return with_probes(1, {{"memory-bandwidth", bandwidth_line("memory-bandwidth", "copy", copy)}});
  };
  SUBCASE("no floor in the tables: 70 % of the peak the runtime's clock and bus width give") {
    // 2 x 2619 MHz x 5120 bits = 3352 GB/s; 70 % of it = 2347 GB/s.
    Result ok = single(run_check("probe.memory-bandwidth", measured(2900)));
    CHECK(ok.status == Status::pass);
    CHECK(contains(ok.message, "2900 GB/s (floor 2347 GB/s)"));
    CHECK(contains(text::join(ok.evidence, "\n"), "peak of 3352 GB/s; the floor is 70 % of it"));
    Result slow = single(run_check("probe.memory-bandwidth", measured(2300)));
    CHECK(slow.status == Status::warn);
    CHECK(contains(slow.message, "2300 GB/s, below the 2347 GB/s"));
    CHECK(contains(slow.message, "peak of 3352 GB/s"));
  }
  SUBCASE("no floor in the tables and no clock or bus width: skip with the figure") {
    Facts f = measured(2900);
    f.probes.backends[0].devices[0].memory_clock_khz.reset();
    Result r = single(run_check("probe.memory-bandwidth", f));
    CHECK(r.status == Status::skip);
    CHECK(contains(r.message, "copy 2900 GB/s"));
    CHECK(contains(r.message, "give a floor"));
  }
  SUBCASE("below the floor: warn; above: pass") {
    Facts slow = measured(1500), fast = measured(2900);
    slow.gpus[0].model->memory_bandwidth_floor_gbps = 2500;
    fast.gpus[0].model->memory_bandwidth_floor_gbps = 2500;
    Result r = single(run_check("probe.memory-bandwidth", slow));
    CHECK(r.status == Status::warn);
    CHECK(contains(r.message, "1500 GB/s, below the 2500 GB/s"));
    CHECK(single(run_check("probe.memory-bandwidth", fast)).status == Status::pass);
  }
  SUBCASE("data that came back wrong: error") {
    Facts f =
        with_probes(1, {{"memory-bandwidth", bandwidth_line("memory-bandwidth", "triad", 2800, false, 12)}});
    Result r = single(run_check("probe.memory-bandwidth", f));
    CHECK(r.status == Status::error);
    CHECK(contains(r.message, "triad (12 wrong values)"));
  }
}

TEST_CASE("probe.host-bandwidth against the PCIe link") {
  CHECK(*checks::pcie_gbps("16.0 GT/s PCIe", 16) == doctest::Approx(31.5).epsilon(0.001));
  CHECK(*checks::pcie_gbps("32.0 GT/s PCIe", 16) == doctest::Approx(63.0).epsilon(0.001));
  CHECK(*checks::pcie_gbps("2.5 GT/s PCIe", 16) == doctest::Approx(4.0));
  CHECK(*checks::pcie_gbps("8.0 GT/s PCIe", 8) == doctest::Approx(7.877).epsilon(0.001));
  CHECK_FALSE(checks::pcie_gbps(std::nullopt, 16).has_value());
  CHECK_FALSE(checks::pcie_gbps("Unknown", 16).has_value());

  auto measured = [](double h2d, double d2h) {
    return with_probes(1, {{"host-bandwidth", bandwidth_line("host-bandwidth", "h2d", h2d) + "\n" +
                                                  bandwidth_line("host-bandwidth", "d2h", d2h)}});
  };
  CHECK(single(run_check("probe.host-bandwidth", measured(53.1, 54.0))).status == Status::pass);
  Result slow = single(run_check("probe.host-bandwidth", measured(53.1, 21.0)));
  CHECK(slow.status == Status::warn); // the slower direction counts: 21 < 60 % of 63
  CHECK(contains(slow.message, "37.8 GB/s"));
  Facts no_link = measured(25, 25);
  no_link.gpus[0].link_speed_max.reset();
  CHECK(single(run_check("probe.host-bandwidth", no_link)).status == Status::skip);
  Facts floor = measured(25, 25);
  floor.gpus[0].model->host_bandwidth_floor_gbps = 100; // a host link the tables describe (NVLink-C2C)
  CHECK(single(run_check("probe.host-bandwidth", floor)).status == Status::warn);
}

TEST_CASE("probe.p2p") {
  SUBCASE("one GPU: skip") {
    CHECK(single(run_check("probe.p2p", with_probes(1, {}))).status == Status::skip);
  }
  SUBCASE("no peer access: warn for each") {
    Facts f = with_probes(
        2, {{"p2p", line("p2p", "access", {{"from", 0}, {"to", 1}, {"can_access", false}}) + "\n" +
                        line("p2p", "access", {{"from", 1}, {"to", 0}, {"can_access", false}})}});
    auto results = run_check("probe.p2p", f);
    REQUIRE(results.size() == 2);
    for (const auto& r : results) {
      CHECK(r.status == Status::warn);
      CHECK(contains(r.message, "peer-to-peer"));
      // iommu=pt is the remedy (passthrough), not the cause: the translating IOMMU is.
      CHECK_FALSE(contains(r.message, "translated mode (iommu=pt)"));
      CHECK(contains(r.message, "boot with iommu=pt"));
      CHECK(r.fixes.empty()); // the kernel command line is unknown: no fix to offer for it
    }
  }
  SUBCASE("no peer access with an IOMMU that translates: the fix is kernel-iommu-pt") {
    Facts f =
        with_probes(2, {{"p2p", line("p2p", "access", {{"from", 0}, {"to", 1}, {"can_access", false}})}});
    f.os.kernel_cmdline = {"BOOT_IMAGE=/vmlinuz ro quiet amd_iommu=on", "/proc/cmdline"};
    Result r = run_check("probe.p2p", f).at(0); // device 0; device 1 measured nothing
    CHECK(r.status == Status::warn);
    CHECK(r.fixes == std::vector<std::string>{"kernel-iommu-pt"});
    CHECK(std::ranges::any_of(r.evidence, [](const std::string& e) { return contains(e, "amd_iommu=on"); }));
    for (const char* cmdline : {"ro iommu=pt", "ro iommu.passthrough=1", "ro intel_iommu=off"}) {
      f.os.kernel_cmdline = {cmdline, "/proc/cmdline"};
      Result other = run_check("probe.p2p", f).at(0);
      CHECK(other.status == Status::warn);
      CHECK_MESSAGE(other.fixes.empty(), cmdline);
    }
  }
  SUBCASE("fast pairs pass, a slow one warns") {
    auto copy = [](int from, int to, double best) {
      return line("p2p", "bandwidth",
                  {{"from", from},
                   {"to", to},
                   {"bytes", 67108864},
                   {"iterations", 5},
                   {"best_gbps", best},
                   {"median_gbps", best},
                   {"verified", true}});
    };
    Facts f =
        with_probes(2, {{"p2p", line("p2p", "access", {{"from", 0}, {"to", 1}, {"can_access", true}}) + "\n" +
                                    line("p2p", "access", {{"from", 1}, {"to", 0}, {"can_access", true}}) +
                                    "\n" + copy(0, 1, 389) + "\n" + copy(1, 0, 9)}});
    auto results = run_check("probe.p2p", f);
    CHECK(status_of(results, f.gpus[0].subject()) == Status::pass);
    CHECK(status_of(results, f.gpus[1].subject()) == Status::warn); // 9 < 50 % of 63
  }
}

TEST_CASE("probe.alloc") {
  auto alloc = [](long long largest, long long chunked) {
    return with_probes(1, {{"alloc", line("alloc", "alloc",
                                          {{"device", 0},
                                           {"free_bytes", 84000000000LL},
                                           {"total_bytes", 85045231616LL},
                                           {"tried_single_bytes", 79800000000LL},
                                           {"largest_single_bytes", largest},
                                           {"chunk_bytes", 1073741824},
                                           {"chunked_bytes", chunked}})}});
  };
  CHECK(single(run_check("probe.alloc", alloc(79800000000, 83000000000))).status == Status::pass);
  Result single_small = single(run_check("probe.alloc", alloc(20000000000, 83000000000)));
  CHECK(single_small.status == Status::warn);
  CHECK(contains(single_small.message, "largest single allocation"));
  Result chunks = single(run_check("probe.alloc", alloc(79800000000, 40000000000)));
  CHECK(chunks.status == Status::warn);
  CHECK(contains(chunks.message, "chunks add up to only"));
}

TEST_CASE("probe.timeout") {
  Facts f = with_probes(1, {{"kernel", ""}});
  CHECK(single(run_check("probe.timeout", f)).status == Status::pass);
  ProbeRun& kernel = f.probes.backends[0].runs[1];
  kernel.timed_out = true;
  kernel.exit_code.reset();
  Result r = single(run_check("probe.timeout", f));
  CHECK(r.status == Status::error);
  CHECK(r.subject == "CUDA runtime");
  CHECK(contains(r.message, "did not finish within 30000 ms"));
  CHECK(r.fixes == std::vector<std::string>{"reboot"}); // the remedy is a fix id, not prose only
  // The kernel check leaves it to probe.timeout.
  CHECK(single(run_check("probe.kernel", f)).status == Status::skip);
}

namespace {

Facts with_torch(Facts f, const std::string& backend, std::vector<std::string> arch_list, int devices,
                 const std::string& op_error = "") {
  FrameworkProbe fw;
  fw.python = "/usr/bin/python3";
  fw.run.name = "torch";
  fw.run.key = "python-gpu";
  fw.run.run = fw.run.found = fw.run.ended = true;
  fw.run.exit_code = 0;
  fw.imported = true;
  fw.version = backend == "hip" ? "2.3.1+rocm6.0" : "2.5.1+cu124";
  if (backend == "hip")
    fw.hip = "6.0.32830";
  else
    fw.cuda = "12.4";
  fw.backend = backend;
  fw.available = devices > 0;
  fw.device_count = devices;
  fw.arch_list = std::move(arch_list);
  for (int i = 0; i < devices; ++i) {
    FrameworkDevice d;
    d.index = i;
    d.op_ok = op_error.empty();
    d.error = op_error;
    fw.devices.push_back(d);
  }
  f.probes.requested = true;
  f.probes.framework = fw;
  return f;
}

} // namespace

TEST_CASE("probe.timeout of the PyTorch probe: still importing, or past the import") {
  // As on the H200 machine with --probe-timeout 1000: killed inside `import torch`.
  Facts f = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 1);
  FrameworkProbe& fw = *f.probes.framework;
  fw.run.timed_out = true;
  fw.run.exit_code.reset();
  fw.run.timeout_ms = 1000;
  fw.imported = false;
  fw.devices.clear();
  Result importing = single(run_check("probe.timeout", f));
  CHECK(importing.status == Status::error);
  CHECK(importing.subject == "python3 (/usr/bin/python3)");
  CHECK(contains(importing.message, "did not get past `import torch` within 1000 ms"));
  CHECK(contains(importing.message, "longer --probe-timeout"));
  fw.imported = true;
  Result past = single(run_check("probe.timeout", f));
  CHECK(past.status == Status::error);
  CHECK(contains(past.message, "past import torch, in its CUDA/HIP calls"));
  CHECK(contains(past.message, "hung GPU or a wedged driver"));
}

TEST_CASE("torch.arch-missing") {
  auto judge = [](const std::string& gpu_arch, std::vector<std::string> list) {
    Facts f = nvidia_machine(1);
    f.gpus[0].model->arch = gpu_arch;
    return single(run_check("torch.arch-missing", with_torch(f, "cuda", std::move(list), 1))).status;
  };
  CHECK(judge("sm_90", {"sm_80", "sm_90"}) == Status::pass);
  CHECK(judge("sm_86", {"sm_50", "sm_80"}) == Status::pass);      // 8.0 machine code runs on 8.6
  CHECK(judge("sm_90", {"sm_50", "sm_80"}) == Status::error);     // not on 9.0
  CHECK(judge("sm_90", {"sm_80", "compute_80"}) == Status::pass); // PTX the driver compiles
  CHECK(judge("sm_120", {"sm_50", "sm_90"}) == Status::error);    // a new GPU, an old wheel
  CHECK(judge("sm_90", {"sm_90a"}) == Status::pass);
  CHECK(judge("sm_100", {"sm_90a", "compute_90a"}) == Status::error); // arch-specific code runs only on 9.0

  Facts amd = amd_machine({110000});
  Result r =
      single(run_check("torch.arch-missing", with_torch(amd, "hip", {"gfx900", "gfx90a", "gfx1030"}, 1)));
  CHECK(r.status == Status::error);
  CHECK(contains(r.message, "gfx1100"));
  CHECK(r.fixes == std::vector<std::string>{"torch-reinstall"});
  set_env(amd, "HSA_OVERRIDE_GFX_VERSION", "10.3.0"); // the runtime then uses gfx1030 code
  CHECK(single(run_check("torch.arch-missing", with_torch(amd, "hip", {"gfx90a", "gfx1030"}, 1))).status ==
        Status::pass);

  Facts op = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 1,
                        "RuntimeError: CUDA error: no kernel image is available for execution on the device");
  CHECK(single(run_check("torch.arch-missing", op)).status == Status::error);
}

TEST_CASE("torch.no-device") {
  Facts none = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 0);
  none.probes.framework->warnings = {
      "CUDA initialization: ... Error 803: system has unsupported display driver"};
  Result r = single(run_check("torch.no-device", none));
  CHECK(r.status == Status::error);
  CHECK(contains(r.message, "Error 803"));
  CHECK(single(run_check("torch.no-device", with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 1))).status ==
        Status::pass);
  // A ROCm build on an NVIDIA-only machine: torch.vendor-mismatch's business.
  CHECK(single(run_check("torch.no-device", with_torch(nvidia_machine(1), "hip", {"gfx90a"}, 0))).status ==
        Status::skip);
  Facts broken = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 1,
                            "RuntimeError: CUDA error: an illegal memory access");
  CHECK(single(run_check("torch.no-device", broken)).status == Status::error);

  // Seen on the H200 machine with CUDA_VISIBLE_DEVICES="": the variable explains it (and errors itself).
  Facts masked = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 0);
  masked.env.all["CUDA_VISIBLE_DEVICES"] = "";
  Result hidden = single(run_check("torch.no-device", masked));
  CHECK(hidden.status == Status::info);
  CHECK(contains(hidden.message, "hides the 1 usable NVIDIA GPU"));
  CHECK(contains(text::join(hidden.evidence, "\n"), "CUDA_VISIBLE_DEVICES"));

  // The only GPU is in MIG mode without MIG devices: gpu.mig's finding, not a second one here.
  Facts mig = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 0);
  mig.nvidia.smi_gpus[0].mig_current = "Enabled";
  mig.nvidia.smi_gpus[0].mig_devices = 0;
  CHECK(single(run_check("torch.no-device", mig)).status == Status::skip);
  mig.nvidia.smi_gpus[0].mig_devices = 2; // with MIG devices CUDA sees them: no device is an error again
  CHECK(single(run_check("torch.no-device", mig)).status == Status::error);

  // A container started without its GPUs: container.nvidia-devices' finding, not a second one here.
  Facts boxed = with_torch(nvidia_machine(1), "cuda", {"sm_90"}, 0);
  boxed.os.in_container = true;
  boxed.os.container_evidence = "/.dockerenv exists";
  Result deferred = single(run_check("torch.no-device", boxed));
  CHECK(deferred.status == Status::skip);
  CHECK(contains(deferred.message, "container.nvidia-devices"));
  boxed.permissions.nvidia_nodes = {make_node("/dev/nvidia0", true, 0666, "root", 0)};
  CHECK(single(run_check("torch.no-device", boxed)).status == Status::error); // its GPU is there
}
