// env.visible-devices-empty
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

namespace gpudoctor::checks {

namespace {

struct Verdict {
  bool problem = false;
  std::string message;
};

// Reads a device list the way the runtimes do: indices or UUIDs (GPU-..., MIG-...), comma separated;
// CUDA stops at the first entry it cannot use, so everything after a bad entry is hidden too.
Verdict judge(const std::string& name, const std::string& value, std::size_t count,
              const std::vector<std::string>& uuids) {
  std::string v = text::trim(value);
  if (v.empty()) return {true, name + " is set but empty: no GPU is visible"};
  if (v == "-1" || v == "NoDevFiles") return {true, name + "=" + v + " hides every GPU"};
  std::size_t usable = 0;
  for (const auto& raw : text::split(v, ',', true)) {
    std::string entry = text::trim(raw);
    if (auto index = text::to_int(entry)) {
      if (*index < 0 || static_cast<std::size_t>(*index) >= count)
        return {true, name + "=" + v + " names device " + entry + ", but there " + (count == 1 ? "is " : "are ") +
                          std::to_string(count) + " GPU" + (count == 1 ? "" : "s") + " (indices 0.." +
                          std::to_string(count - 1) + ")" + (usable ? "; devices after it are hidden too" : "")};
      ++usable;
      continue;
    }
    bool uuid_like = text::starts_with(entry, "GPU-") || text::starts_with(entry, "MIG-");
    if (uuid_like && !uuids.empty()) {
      bool known = false;
      for (const auto& u : uuids) known = known || text::starts_with(u, entry);
      if (!known) return {true, name + " names " + entry + ", which matches no GPU's UUID"};
      ++usable;
      continue;
    }
    if (uuid_like) {
      ++usable; // UUIDs unknown here (no nvidia-smi): give it the benefit of the doubt
      continue;
    }
    return {true, name + "=" + v + " has \"" + entry + "\", which is neither an index nor a UUID"};
  }
  if (usable == 0) return {true, name + "=" + v + " leaves no GPU visible"};
  return {false, name + "=" + v + " selects " + std::to_string(usable) + " of " + std::to_string(count) + " GPUs"};
}

} // namespace

void env_visible_devices_empty(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  std::vector<std::string> uuids;
  for (const auto& g : f.nvidia.smi_gpus) uuids.push_back(g.uuid);
  bool any = false;
  // CUDA_VISIBLE_DEVICES applies to NVIDIA GPUs, and to HIP on an AMD-only machine (ROCm honours it).
  const std::pair<const char*, std::size_t> vars[] = {{"CUDA_VISIBLE_DEVICES", nvidia ? nvidia : amd},
                                                      {"HIP_VISIBLE_DEVICES", amd},
                                                      {"ROCR_VISIBLE_DEVICES", amd},
                                                      {"GPU_DEVICE_ORDINAL", amd}};
  for (const auto& [name, count] : vars) {
    auto it = f.env.all.find(name);
    if (it == f.env.all.end() || count == 0) continue;
    any = true;
    Verdict verdict = judge(name, it->second, count, nvidia ? uuids : std::vector<std::string>{});
    if (verdict.problem)
      out.add(Status::error, name, verdict.message + ".", {env_evidence(name, it->second)}, {"env-visible-devices"});
    else
      out.pass(name, verdict.message, {env_evidence(name, it->second)});
  }
  if (!any) out.pass("", "no device-selection variable hides a GPU");
}

} // namespace gpudoctor::checks
