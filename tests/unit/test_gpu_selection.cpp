// check/probe -i/--gpus (collect/gpu_selection.hpp): the words that name a GPU, what the probes' runtimes are
// shown, and a report whose per-GPU results are the chosen GPUs' only.
#include "check_fixtures.hpp"
#include "collect/collect_probes.hpp"
#include "collect/gpu_selection.hpp"
#include "report/report.hpp"
#include "unit/test_parse_util.hpp"

#include <future>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// Counts the commands run: `nvidia-smi -L` only for a MIG UUID of the current form.
struct CountingView : MemView {
  int runs = 0;
  CommandResult run(const CommandSpec& spec) override {
    ++runs;
    return MemView::run(spec);
  }
};

const std::vector<std::string> k_listed_uuids = {"GPU-2927d07e-3fe9-7904-9e08-b08b82d9a37d",
                                                 "GPU-e109d8d9-923e-7235-0429-96b7fdbcbd30"};

// Four H100s; the first two carry the UUIDs of the `nvidia-smi -L` sample (two A100s in MIG mode).
Facts four_gpus() {
  Facts f = nvidia_machine(4);
  f.nvidia.smi_gpus[0].uuid = k_listed_uuids[0];
  f.nvidia.smi_gpus[1].uuid = k_listed_uuids[1];
  return linked(std::move(f)); // the selection joins nvidia-smi to PCI by the linked bdf
}

std::vector<int> chosen(SystemView& view, const Facts& f, const std::vector<std::string>& words) {
  auto s = select_gpus(view, f, words, std::chrono::milliseconds(1000));
  REQUIRE_MESSAGE(s.has_value(), (s ? std::string() : s.error()));
  return s->gpus;
}

std::string refused(SystemView& view, const Facts& f, const std::vector<std::string>& words) {
  auto s = select_gpus(view, f, words, std::chrono::milliseconds(1000));
  REQUIRE_FALSE(s.has_value());
  return s.error();
}

} // namespace

TEST_CASE("--gpus: an index, a name, a PCI address in each form and a UUID choose the same GPU") {
  Facts f = four_gpus();
  CountingView view;
  const std::string bdf = f.gpus[2].bdf; // 0000:1a:00.0
  for (std::string word :
       std::vector<std::string>{"2", "gpu2", "GPU2", bdf, "1a:00.0", "00000000:1A:00.0", " 2 ",
                                f.nvidia.smi_gpus[2].uuid, text::lower(f.nvidia.smi_gpus[2].uuid)}) {
    CAPTURE(word);
    CHECK(chosen(view, f, {word}) == std::vector<int>{2});
  }
  // In order, once each, whatever the words' order and repeats.
  CHECK(chosen(view, f, {"3", bdf, "0", "gpu3"}) == std::vector<int>{0, 2, 3});
  CHECK(view.runs == 0); // none of these needs nvidia-smi -L
}

TEST_CASE("--gpus: MIG UUIDs choose their GPU, the current form through nvidia-smi -L") {
  Facts f = four_gpus();
  CountingView view;
  view.command("nvidia-smi-L", slurp(data_path("parse/nvidia-smi-L-a100-2gpu-mig-1.txt")));
  auto s =
      select_gpus(view, f, {"MIG-b4bcd4f3-6f69-516d-9404-b5ada80d760b"}, std::chrono::milliseconds(1000));
  REQUIRE(s.has_value());
  CHECK(s->gpus == std::vector<int>{1});
  REQUIRE(s->migs.size() == 1);
  CHECK(s->migs[0].gpu == 1);
  CHECK(s->migs[0].uuid == "MIG-b4bcd4f3-6f69-516d-9404-b5ada80d760b");
  CHECK(view.runs == 1);
  // The form before R470 names its GPU: no listing needed.
  CountingView quiet;
  auto old = select_gpus(quiet, f, {"MIG-" + k_listed_uuids[0] + "/1/0"}, std::chrono::milliseconds(1000));
  REQUIRE(old.has_value());
  CHECK(old->gpus == std::vector<int>{0});
  CHECK(quiet.runs == 0);
  // A MIG UUID no listing has, and one where nvidia-smi -L is not there.
  CHECK(text::contains(refused(view, f, {"MIG-00000000-0000-0000-0000-000000000000"}),
                       "`nvidia-smi -L` lists none with that UUID"));
  CHECK(text::contains(refused(quiet, f, {"MIG-6e95ef19-5145-571b-b040-7e731f1c1af3"}),
                       "cannot tell which GPU MIG-6e95ef19-5145-571b-b040-7e731f1c1af3 is on"));
}

TEST_CASE("--gpus: a word that names no GPU is refused, naming the GPUs there are") {
  Facts f = four_gpus();
  CountingView view;
  std::string e = refused(view, f, {"0", "7"});
  CHECK(text::contains(e, "no GPU \"7\""));
  CHECK(text::contains(e, "gpu3 (0000:1b:00.0)"));
  CHECK(text::contains(refused(view, f, {"0000:99:00.0"}), "no GPU at 0000:99:00.0"));
  CHECK(text::contains(refused(view, f, {"fastest"}), "\"fastest\" names no GPU"));
  CHECK(text::contains(refused(view, f, {"GPU-aaaa"}), "nvidia-smi lists GPU-2927d07e"));
  // What goes into a probe's environment has only a UUID's characters.
  CHECK(text::contains(refused(view, f, {"MIG-$(reboot)"}), "is not a GPU or MIG UUID"));
  CHECK(text::contains(refused(view, f, {""}), "empty entry"));
  CHECK(text::contains(refused(view, Facts{}, {"0"}), "this machine has no GPU on its PCI bus"));
  CHECK(view.runs == 0);
}

TEST_CASE("--gpus: what the CUDA and HIP runtimes of the probes are shown") {
  Facts f = four_gpus();
  f.gpus.push_back(make_amd_gpu(4));
  f.gpus.push_back(make_amd_gpu(5));
  f.gpus[4].index = 4;
  f.gpus[5].index = 5;
  // ROCr numbers by KFD node: gpu5's node comes first.
  f.gpus[4].kfd->node_id = 3;
  f.gpus[5].kfd->node_id = 2;
  CountingView view;
  auto pick = [&](std::vector<std::string> words) {
    auto s = select_gpus(view, f, words, std::chrono::milliseconds(1000));
    REQUIRE(s.has_value());
    return *s;
  };
  SUBCASE("NVIDIA GPUs by UUID, in bus order; no AMD GPU chosen: the HIP probes do not run") {
    GpuSelection s = pick({"3", "1"});
    VisibleDevices cuda = cuda_visible_devices(f, s);
    CHECK_FALSE(cuda.none);
    CHECK(cuda.set.at("CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
    CHECK(cuda.set.at("CUDA_VISIBLE_DEVICES") == k_listed_uuids[1] + "," + f.nvidia.smi_gpus[3].uuid);
    CHECK(hip_visible_devices(f, s).none);
  }
  SUBCASE("without a UUID from nvidia-smi: the ordinal in bus order among the GPUs nvidia drives") {
    f.nvidia.smi_gpus.clear();
    f.gpus[0].driver = {}; // unbound: CUDA does not count it
    GpuSelection s = pick({"2"});
    CHECK(cuda_visible_devices(f, s).set.at("CUDA_VISIBLE_DEVICES") == "1");
  }
  SUBCASE("a MIG device replaces its GPU") {
    view.command("nvidia-smi-L", slurp(data_path("parse/nvidia-smi-L-a100-2gpu-mig-1.txt")));
    GpuSelection s = pick({"MIG-6e95ef19-5145-571b-b040-7e731f1c1af3", "2"});
    CHECK(cuda_visible_devices(f, s).set.at("CUDA_VISIBLE_DEVICES") ==
          "MIG-6e95ef19-5145-571b-b040-7e731f1c1af3," + f.nvidia.smi_gpus[2].uuid);
  }
  SUBCASE("AMD GPUs by their ROCr ordinal; the variables that would narrow it again are removed") {
    GpuSelection s = pick({"4"});
    CHECK(cuda_visible_devices(f, s).none);
    VisibleDevices hip = hip_visible_devices(f, s);
    CHECK(hip.set.at("HIP_VISIBLE_DEVICES") == "1"); // gpu4's node (3) is the second GPU node
    CHECK(std::find(hip.unset.begin(), hip.unset.end(), "ROCR_VISIBLE_DEVICES") != hip.unset.end());
    CHECK(std::find(hip.unset.begin(), hip.unset.end(), "CUDA_VISIBLE_DEVICES") != hip.unset.end());
    CHECK(hip_visible_devices(f, pick({"5", "4"})).set.at("HIP_VISIBLE_DEVICES") == "0,1");
  }
}

namespace {

bool names_a_gpu(const Report& report, const std::string& subject) {
  for (const auto& gpu : report.facts.gpus)
    if (gpu.subject() == subject) return true;
  return false;
}

std::vector<std::string> machine_wide(const Report& report) {
  std::vector<std::string> out;
  for (const auto& r : report.results)
    if (!names_a_gpu(report, r.subject)) out.push_back(r.id + " " + r.subject + " " + status_name(r.status));
  return out;
}

} // namespace

TEST_CASE("check -i on the 8-GPU fixture: per-GPU results of the chosen GPUs only, the rest as before") {
  const auto snapshot = machine_dir("nvidia-8gpu-nccl-misconfigured") / "snapshot";
  Report whole = judged_snapshot(snapshot);
  CheckOptions opt;
  opt.gpus = {"2", "0000:b7:00.0"};
  Report part = judged_snapshot(snapshot, opt);
  REQUIRE(part.selection.has_value());
  CHECK(part.selection->gpus == std::vector<int>{2, 7});
  std::set<std::string> gpu_subjects;
  for (const auto& r : part.results)
    if (names_a_gpu(part, r.subject)) gpu_subjects.insert(r.subject);
  CHECK(gpu_subjects == std::set<std::string>{"gpu2 (0000:95:00.0)", "gpu7 (0000:b7:00.0)"});
  // Each per-GPU result of a chosen GPU is as it was; the machine-wide ones are all there.
  std::size_t chosen_before = 0;
  for (const auto& r : whole.results)
    chosen_before += gpu_subjects.count(r.subject);
  std::size_t chosen_after = 0;
  for (const auto& r : part.results)
    chosen_after += gpu_subjects.count(r.subject);
  CHECK(chosen_after == chosen_before);
  CHECK(chosen_after > 0);
  CHECK(machine_wide(part) == machine_wide(whole));
  // The report says which GPUs it covers; without --gpus it says nothing of it.
  Json j = report_to_json(part);
  CHECK(j["selection"]["gpus"] == Json::array({"gpu2 (0000:95:00.0)", "gpu7 (0000:b7:00.0)"}));
  CHECK(j["selection"]["of"] == 8);
  CHECK(j["selection"]["asked"] == Json::array({"2", "0000:b7:00.0"}));
  CHECK_FALSE(report_to_json(whole).contains("selection"));
  std::string text = render_text(part, catalogue(), {});
  CHECK(text::contains(
      text, "Covers gpu2 (0000:95:00.0), gpu7 (0000:b7:00.0) of the 8 GPUs (--gpus 2,0000:b7:00.0)"));
}

TEST_CASE("probe -i on the recorded 2-GPU AMD fixture: the probe results of the chosen GPU only") {
  const auto snapshot = machine_dir("probe-amd-2gpu-no-p2p") / "snapshot";
  CheckOptions opt;
  opt.probes = true;
  Report whole = judged_snapshot(snapshot, opt);
  opt.gpus = {"1"};
  Report part = judged_snapshot(snapshot, opt);
  REQUIRE(whole.facts.gpus.size() == 2);
  const std::string gpu0 = whole.facts.gpus[0].subject(), gpu1 = whole.facts.gpus[1].subject();
  auto count = [](const Report& r, const std::string& subject, const std::string& prefix) {
    return std::count_if(r.results.begin(), r.results.end(),
                         [&](const Result& x) { return x.subject == subject && x.id.starts_with(prefix); });
  };
  CHECK(count(whole, gpu0, "probe.") > 0);
  CHECK(count(whole, gpu1, "probe.") > 0);
  CHECK(count(part, gpu0, "") == 0);
  CHECK(count(part, gpu1, "probe.") == count(whole, gpu1, "probe."));
  // A replay judges what the snapshot recorded: it shows the runtimes nothing and says no GPU was hidden.
  CHECK(part.facts.probes.chosen_gpus.empty());
}

namespace {

// Keeps the environment each probe was started with.
struct SpecView : MemView {
  std::map<std::string, CommandSpec> specs;
  CommandResult run(const CommandSpec& spec) override {
    specs[spec.key] = spec;
    return MemView::run(spec);
  }
};

} // namespace

TEST_CASE(
    "--gpus: the probes start with the chosen GPUs' visibility, and a runtime with none chosen is not run") {
  Facts f = four_gpus();
  SpecView view;
  view.command("probe-devices@cuda", "");
  GpuSelection s;
  s.asked = {"2"};
  s.gpus = {2};
  ProbeOptions opt;
  opt.requested = true;
  opt.visible = {{"cuda", cuda_visible_devices(f, s)}, {"hip", hip_visible_devices(f, s)}};
  opt.chosen_bdfs = {f.gpus[2].bdf};
  PythonEnv env;
  env.executable = "/usr/bin/python3";
  env.torch = TorchBuild{"2.6.0+cu124", "12.4", std::nullopt, "", "", ""};
  f.python.envs = {env};
  std::promise<std::optional<FrameworkProbe>> started;
  started.set_value(framework_probe(view, opt, f.python));
  auto framework = started.get_future();
  collect_probes(view, opt, f, framework);
  REQUIRE(view.specs.count("probe-devices@cuda"));
  const CommandSpec& devices = view.specs.at("probe-devices@cuda");
  CHECK(devices.extra_env.at("CUDA_VISIBLE_DEVICES") == f.nvidia.smi_gpus[2].uuid);
  CHECK(devices.extra_env.at("CUDA_DEVICE_ORDER") == "PCI_BUS_ID");
  REQUIRE(view.specs.count("python-gpu"));
  CHECK(view.specs.at("python-gpu").extra_env.at("CUDA_VISIBLE_DEVICES") == f.nvidia.smi_gpus[2].uuid);
  CHECK_FALSE(view.specs.count("probe-devices@hip"));
  const BackendProbes* hip = f.probes.backend("hip");
  REQUIRE(hip);
  CHECK(hip->unavailable == "--gpus chose no AMD GPU");
  CHECK(f.probes.chosen_gpus == std::vector<std::string>{f.gpus[2].bdf});
}
