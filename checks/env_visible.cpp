// env.visible-devices-empty
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

struct VisibleVerdict {
  bool problem = false;
  std::size_t usable = 0; // devices the runtimes still see: none is an error, some a warning
  std::string message;
};

// Reads a device list the way the runtimes do: indices or UUIDs (GPU-..., MIG-...), comma separated;
// CUDA stops at the first entry it cannot use, so only the entries before a bad one are visible.
// `uuids`: the GPU UUIDs this variable can name (nvidia-smi's); empty when unknown.
VisibleVerdict judge(const std::string& name, const std::string& value, std::size_t count,
                     const std::vector<std::string>& uuids) {
  std::string v = text::trim(value);
  if (v.empty()) return {true, 0, fmt::format("{} is set but empty: no GPU is visible", name)};
  if (v == "-1" || v == "NoDevFiles") return {true, 0, fmt::format("{}={} hides every GPU", name, v)};
  auto entries = text::split(v, ',', true);
  std::vector<std::string> visible; // the entries before a bad one
  // What a bad entry leaves visible, and what it hides after it.
  auto consequence = [&](std::size_t position) {
    std::string s = "no GPU is visible";
    if (!visible.empty())
      s = fmt::format("device{} {} stay{} visible{}", visible.size() == 1 ? "" : "s",
                      text::join(visible, ", "), visible.size() == 1 ? "s" : "",
                      visible.size() == count ? " (every GPU here)" : "");
    if (position + 1 < entries.size()) s += ", and the entries after it are ignored";
    return s;
  };
  auto bad = [&](std::string what) { return VisibleVerdict{true, visible.size(), std::move(what)}; };
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::string entry = text::trim(entries[i]);
    if (auto index = text::to_int(entry)) {
      if (*index < 0 || static_cast<std::size_t>(*index) >= count)
        return bad(fmt::format("{}={} names device {}, but there {} {} GPU{} (indices 0..{}): {}", name, v,
                               entry, count == 1 ? "is" : "are", count, count == 1 ? "" : "s", count - 1,
                               consequence(i)));
      if (std::find(visible.begin(), visible.end(), entry) != visible.end())
        return bad(
            fmt::format("{}={} repeats device {}: the runtimes stop at an entry they cannot use, so {} "
                        "(PyTorch's own device count treats a repeated index as no device at all)",
                        name, v, entry, consequence(i)));
      visible.push_back(entry);
      continue;
    }
    // MIG devices have UUIDs of their own that nvidia-smi's GPU list does not hold: never judged unknown.
    bool gpu_uuid = text::starts_with(entry, "GPU-");
    bool uuid_like = gpu_uuid || text::starts_with(entry, "MIG-");
    if (gpu_uuid && !uuids.empty()) {
      bool known = false;
      for (const auto& u : uuids)
        known = known || text::starts_with(u, entry);
      if (!known)
        return bad(fmt::format("{} names {}, which matches no GPU's UUID: {}", name, entry, consequence(i)));
      visible.push_back(entry);
      continue;
    }
    if (uuid_like) {
      visible.push_back(
          entry); // UUIDs unknown here (no nvidia-smi, MIG, AMD): give it the benefit of the doubt
      continue;
    }
    return bad(fmt::format("{}={} has \"{}\", which is neither an index nor a UUID: {}", name, v, entry,
                           consequence(i)));
  }
  if (visible.empty()) return {true, 0, fmt::format("{}={} leaves no GPU visible", name, v)};
  return {false, visible.size(), fmt::format("{}={} selects {} of {} GPUs", name, v, visible.size(), count)};
}

} // namespace

void env_visible_devices_empty(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  std::vector<std::string> uuids;
  for (const auto& g : f.nvidia.smi_gpus)
    if (!g.uuid.empty()) uuids.push_back(g.uuid);
  bool any = false;
  // CUDA_VISIBLE_DEVICES applies to NVIDIA GPUs, and to HIP on an AMD-only machine (ROCm honours it).
  const std::pair<const char*, std::size_t> vars[] = {{"CUDA_VISIBLE_DEVICES", nvidia ? nvidia : amd},
                                                      {"HIP_VISIBLE_DEVICES", amd},
                                                      {"ROCR_VISIBLE_DEVICES", amd},
                                                      {"GPU_DEVICE_ORDINAL", amd}};
  auto hip_list = f.env.all.find("HIP_VISIBLE_DEVICES");
  bool hip_list_set = hip_list != f.env.all.end() && !hip_list->second.empty();
  for (const auto& [name, count] : vars) {
    auto it = f.env.all.find(name);
    if (it == f.env.all.end() || count == 0) continue;
    any = true;
    // HIP (ROCclr) reads HIP_VISIBLE_DEVICES when it is not empty, else CUDA_VISIBLE_DEVICES, and filters
    // only on a non-empty list; OpenCL reads GPU_DEVICE_ORDINAL the same way. Only ROCr filters on an empty
    // ROCR_VISIBLE_DEVICES. So on AMD GPUs an empty value, or CUDA_VISIBLE_DEVICES beside a HIP list, hides
    // nothing.
    std::string var = name;
    bool amd_side = var != "CUDA_VISIBLE_DEVICES" || nvidia == 0;
    std::string ignored;
    if (amd_side && var != "ROCR_VISIBLE_DEVICES" && it->second.empty())
      ignored = fmt::format("{} is set but empty, which the HIP and OpenCL runtimes treat as unset", var);
    else if (var == "CUDA_VISIBLE_DEVICES" && nvidia == 0 && hip_list_set)
      ignored = fmt::format("HIP uses HIP_VISIBLE_DEVICES, which is set, instead of CUDA_VISIBLE_DEVICES={}",
                            it->second);
    if (!ignored.empty()) {
      // ROCm PyTorch parses the variables itself: an empty HIP/CUDA list gives device_count() == 0.
      bool rocm_torch = any_torch_for(f, Vendor::amd);
      bool torch_reads = var == "HIP_VISIBLE_DEVICES" || var == "CUDA_VISIBLE_DEVICES";
      if (rocm_torch && torch_reads && it->second.empty()) {
        out.add(Status::warn, name,
                fmt::format(
                    "{}, but ROCm PyTorch reads it itself and then sees no GPU (torch.cuda.device_count() "
                    "is 0). Unset it.{}",
                    ignored, where_set(f, name)),
                {env_evidence(ctx.facts, name, it->second)});
        continue;
      }
      out.pass(name, ignored, {env_evidence(ctx.facts, name, it->second)});
      continue;
    }
    // nvidia-smi's UUIDs are NVIDIA ones: only CUDA_VISIBLE_DEVICES on a machine with NVIDIA GPUs names them.
    bool names_nvidia = !amd_side;
    VisibleVerdict verdict =
        judge(name, it->second, count, names_nvidia ? uuids : std::vector<std::string>{});
    // No GPU left is an error; a wrong entry while some stay visible is a warning naming them.
    if (verdict.problem)
      out.add(verdict.usable == 0 ? Status::error : Status::warn, name,
              fmt::format("{}.{}", verdict.message, where_set(f, name)),
              {env_evidence(ctx.facts, name, it->second)});
    else
      out.pass(name, verdict.message, {env_evidence(ctx.facts, name, it->second)});
  }
  if (!any) out.pass("", "no device-selection variable hides a GPU");
}

} // namespace gpudoctor::checks
