// rocm.igpu-visible: a Ryzen processor's integrated GPU that ROCm lists beside a discrete AMD GPU.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// An AMD GPU as ROCm numbers it: the runtime enumerates the KFD topology's GPU nodes in node order.
struct RocmDevice {
  const Gpu* gpu = nullptr;
  int index = 0;
  bool apu = false;
  std::string target;
};

std::vector<RocmDevice> rocm_devices(const CheckContext& ctx) {
  std::vector<const Gpu*> nodes;
  for (const auto& gpu : ctx.facts.gpus)
    if (gpu.vendor == Vendor::amd && gpu.kfd) nodes.push_back(&gpu);
  std::ranges::sort(nodes, [](const Gpu* a, const Gpu* b) { return a->kfd->node_id < b->kfd->node_id; });
  std::vector<RocmDevice> out;
  for (const Gpu* gpu : nodes) {
    out.push_back({gpu, static_cast<int>(out.size()), integrated_gpu(ctx.kb, *gpu), gpu_gfx(*gpu)});
  }
  return out;
}

// The devices a selection variable leaves, applied as the runtimes do: ROCR_VISIBLE_DEVICES selects among
// the KFD's GPUs, then HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES, which HIP reads too) among those left.
// Indices select by position; a UUID selects the device whose UUID it is, and an integrated GPU has none
// (rocminfo prints "GPU-XX"), so a list of UUIDs never selects one. An entry that selects nothing ends the
// list, as in the runtimes. Returns the positions (in `before`) still visible.
std::vector<int> select(const std::vector<int>& before, const std::vector<RocmDevice>& devices,
                        const std::string& value) {
  std::vector<int> out;
  for (const auto& raw : text::split(value, ',', true)) {
    std::string entry = text::trim(raw);
    auto index = text::to_int(entry);
    if (index && *index >= 0 && static_cast<std::size_t>(*index) < before.size()) {
      out.push_back(before[static_cast<std::size_t>(*index)]);
      continue;
    }
    if (text::starts_with(entry, "GPU-")) {
      // A discrete GPU's UUID: which one is unknown here (KFD's unique_id is not read), so take the first
      // discrete device not yet selected; an integrated GPU is never named by one.
      auto it = std::ranges::find_if(before, [&](int i) {
        return !devices[static_cast<std::size_t>(i)].apu && std::ranges::find(out, i) == out.end();
      });
      if (it != before.end()) {
        out.push_back(*it);
        continue;
      }
    }
    break;
  }
  return out;
}

// What the selection variables leave visible: `runtime` after ROCR_VISIBLE_DEVICES (what the ROCm runtime
// opens), `programs` after HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES too (what HIP programs see).
struct Visibility {
  std::vector<int> runtime, programs;
  std::vector<std::string> evidence; // the variables applied
};

Visibility visible_devices(const CheckContext& ctx, const std::vector<RocmDevice>& devices) {
  Visibility v;
  for (std::size_t i = 0; i < devices.size(); ++i)
    v.runtime.push_back(static_cast<int>(i));
  const auto& env = ctx.facts.env.all;
  auto apply = [&](const char* name, std::vector<int>& visible) {
    auto it = env.find(name);
    if (it == env.end()) return false;
    visible = select(visible, devices, it->second);
    v.evidence.push_back(env_evidence(ctx.facts, name, it->second));
    return true;
  };
  apply("ROCR_VISIBLE_DEVICES", v.runtime);
  v.programs = v.runtime;
  if (!apply("HIP_VISIBLE_DEVICES", v.programs)) apply("CUDA_VISIBLE_DEVICES", v.programs);
  return v;
}

std::string indices(const std::vector<RocmDevice>& devices, bool apu) {
  std::vector<std::string> out;
  for (const auto& d : devices)
    if (d.apu == apu) out.push_back(std::to_string(d.index));
  return text::join(out, ",");
}

} // namespace

void rocm_igpu_visible(const CheckContext& ctx, Results& out) {
  if (ctx.facts.count(Vendor::amd) == 0) return out.skip("", "no AMD GPU");
  auto devices = rocm_devices(ctx);
  if (devices.empty()) return out.skip("", "no AMD GPU in the KFD topology (ROCm's list of devices)");
  auto discrete = std::ranges::count_if(devices, [](const RocmDevice& d) { return !d.apu; });
  auto integrated = std::ranges::count_if(devices, [](const RocmDevice& d) { return d.apu; });
  if (integrated == 0) return out.pass("", "ROCm lists no integrated GPU");
  if (discrete == 0)
    return out.pass("", "ROCm lists only integrated GPUs, none beside a discrete one (rocm.gpu-unsupported "
                        "judges their targets)");
  std::vector<std::string> names;
  for (const auto& d : devices)
    if (!d.apu) names.push_back(fmt::format("device {} {}", d.index, d.gpu->display_name()));
  Visibility vis = visible_devices(ctx, devices);
  for (const auto& d : devices) {
    if (!d.apu) continue;
    std::vector<std::string> evidence = {
        fmt::format("{}: {}, KFD node {} ({})", gpu_evidence(*d.gpu), d.target, d.gpu->kfd->node_id,
                    d.gpu->kfd->source),
        fmt::format("knowledge gfx.yaml: {} is an APU target (LLVM's processor table)", d.target)};
    evidence.insert(evidence.end(), vis.evidence.begin(), vis.evidence.end());
    auto shown = [&](const std::vector<int>& visible) {
      return std::ranges::find(visible, d.index) != visible.end();
    };
    if (!shown(vis.runtime)) {
      out.pass(d.gpu->subject(),
               fmt::format("{} ({}), the processor's integrated GPU, is hidden from the ROCm runtime by "
                           "ROCR_VISIBLE_DEVICES",
                           d.gpu->display_name(), d.target),
               evidence);
      continue;
    }
    if (!shown(vis.programs)) {
      out.add(
          Status::info, d.gpu->subject(),
          fmt::format("{} ({}), the processor's integrated GPU, is hidden from HIP programs, but the ROCm "
                      "runtime still opens it: AMD's install guide warns that the runtime may crash the "
                      "system even then. ROCR_VISIBLE_DEVICES={} hides it from the runtime itself; turning "
                      "the integrated graphics off in the firmware setup removes it.",
                      d.gpu->display_name(), d.target, indices(devices, false)),
          evidence);
      continue;
    }
    bool first =
        std::ranges::all_of(devices, [&](const RocmDevice& o) { return !(o.index < d.index && !o.apu); });
    out.add(
        Status::warn, d.gpu->subject(),
        fmt::format("{} ({}) is the integrated GPU of the processor, and ROCm lists it as device {} beside "
                    "{}. ROCm does not support integrated GPUs beside a discrete one: programs that use "
                    "every device, or device {}, fail on it (\"invalid device function\", a segmentation "
                    "fault, a hang){}. Hide it from ROCm with ROCR_VISIBLE_DEVICES={} in the jobs' "
                    "environment, or turn the integrated graphics off in the firmware setup; installing "
                    "another ROCm does not help.",
                    d.gpu->display_name(), d.target, d.index, text::join(names, ", "), d.index,
                    first ? ", and it comes first, so device 0 is not the discrete GPU" : "",
                    indices(devices, false)),
        evidence, no_fix);
    out.act(Action::command({{"export", "ROCR_VISIBLE_DEVICES=" + indices(devices, false)}}));
  }
}

} // namespace gpudoctor::checks
