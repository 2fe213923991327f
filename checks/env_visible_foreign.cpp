// env.visible-devices-foreign: a device-selection variable, or another variable only one vendor's stack
// reads, of the vendor whose GPUs are not here (knowledge.md §5.2; the variables, their layers and readers:
// checks/knowledge/env.yaml device_selection and vendor_variables).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// Whether a CUDA_VISIBLE_DEVICES value, as HIP reads it, leaves no GPU: -1, or an entry that is neither an
// index nor a UUID before any usable one (HIP stops at the first bad entry, like CUDA).
bool hides_all(const std::string& value, std::size_t count) {
  std::string v = text::trim(value);
  auto entries = text::split(v, ',', true);
  if (entries.empty()) return false;
  auto first = text::to_int(text::trim(entries.front()));
  if (first) return *first < 0 || static_cast<std::size_t>(*first) >= count;
  return !text::starts_with(text::trim(entries.front()), "GPU-");
}

// The vendor a knowledge row names ("nvidia" or "amd": the loader refuses anything else).
Vendor row_vendor(const std::string& vendor) {
  return vendor == "nvidia" ? Vendor::nvidia : Vendor::amd;
}

const char* stack_name(Vendor v) {
  return v == Vendor::nvidia ? "CUDA" : "ROCm";
}

// The variables only one vendor's stack reads (vendor_variables): one result each. A runtime setting of the
// absent vendor does nothing here (warn); a build setting (an arch list) only matters where that vendor's
// toolkit would build with it (warn), else it is a harmless leftover (info). True when one is set.
bool judge_vendor_variables(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& [name, value] : f.env.all) {
    const VendorVariableRow* row = ctx.kb.env.vendor_variable(name);
    if (!row) continue;
    any = true;
    Vendor mine = row_vendor(row->vendor);
    Vendor other = mine == Vendor::nvidia ? Vendor::amd : Vendor::nvidia;
    std::vector<std::string> evidence = {
        env_evidence(f, name, value),
        fmt::format("knowledge vendor_variables {}: {}", row->name, row->source)};
    if (f.count(mine) > 0) {
      out.pass(name, fmt::format("{} belongs to the {} GPUs here ({})", name, vendor_name(mine), row->reader),
               evidence);
      continue;
    }
    std::size_t count = f.count(other);
    std::string gpus = fmt::format("{} {} GPU{}", count, vendor_name(other), count == 1 ? "" : "s");
    if (row->kind == "runtime") {
      out.add(Status::warn, name,
              fmt::format("{}={} is read by {}'s {} only, and this machine has {} and no {} GPU: it does "
                          "nothing here. Likely a leftover of a {} setup; remove it from the environment "
                          "and your shell profile.{}",
                          name, value, vendor_name(mine), row->reader, gpus, vendor_name(mine),
                          stack_name(mine), where_set(f, name)),
              evidence);
      continue;
    }
    bool toolkit = mine == Vendor::amd ? rocm_installed(f) : cuda_toolkit_installed(f);
    out.add(toolkit ? Status::warn : Status::info, name,
            fmt::format(
                "{}={} picks the {} GPU targets that {} compile for; this machine has {} and no {} "
                "GPU{}. Likely a leftover of a {} setup; remove it from the environment and your "
                "shell profile.{}",
                name, value, vendor_name(mine), row->reader, gpus, vendor_name(mine),
                toolkit ? fmt::format(", and its {} would build for those targets: what is built here "
                                      "does not run on its GPUs",
                                      stack_name(mine))
                        : fmt::format(", and no {} to build with: it does nothing here", stack_name(mine)),
                stack_name(mine), where_set(f, name)),
            evidence);
  }
  return any;
}

} // namespace

void env_visible_devices_foreign(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  std::size_t nvidia = f.count(Vendor::nvidia), amd = f.count(Vendor::amd);
  if (nvidia == 0 && amd == 0) return out.skip("", "no NVIDIA or AMD GPU: no vendor to compare with");
  bool any = false;
  for (const auto& row : ctx.kb.env.device_selection) {
    auto it = f.env.all.find(row.name);
    if (it == f.env.all.end()) continue;
    any = true;
    const std::string& value = it->second;
    std::vector<std::string> evidence = {
        env_evidence(ctx.facts, row.name, value),
        fmt::format("knowledge device_selection {}: {}", row.name, row.source)};
    Vendor mine = row_vendor(row.vendor);
    if (f.count(mine) > 0) {
      out.pass(row.name,
               fmt::format("{} belongs to the {} GPUs here ({})", row.name, vendor_name(mine), row.layer),
               evidence);
      continue;
    }
    for (const auto& gpu : f.gpus)
      if (gpu.vendor != Vendor::other) {
        evidence.push_back(gpu_evidence(gpu));
        break;
      }
    if (mine == Vendor::amd) {
      out.add(
          Status::warn, row.name,
          fmt::format("{}={} is read by AMD's {} only, and this machine has {} NVIDIA GPU{} and no AMD GPU: "
                      "it does nothing here (CUDA reads CUDA_VISIBLE_DEVICES). Likely a leftover of a ROCm "
                      "setup; remove it from the environment and your shell profile.{}",
                      row.name, value, row.layer, nvidia, nvidia == 1 ? "" : "s", where_set(f, row.name)),
          evidence);
      continue;
    }
    // CUDA_VISIBLE_DEVICES on an AMD-only machine: HIP honours it unless HIP_VISIBLE_DEVICES is set.
    auto hip = f.env.all.find("HIP_VISIBLE_DEVICES");
    bool hip_list = hip != f.env.all.end() && !hip->second.empty();
    std::string gpus = fmt::format("{} AMD GPU{}", amd, amd == 1 ? "" : "s");
    std::string message;
    if (hip_list) {
      evidence.push_back(env_evidence(ctx.facts, hip->first, hip->second));
      message =
          fmt::format("{}={} is NVIDIA's variable and this machine has {} and no NVIDIA GPU; HIP uses "
                      "HIP_VISIBLE_DEVICES instead, so it does nothing here. Likely a leftover; remove it.",
                      row.name, value, gpus);
    } else if (text::trim(value).empty()) {
      // ROCm PyTorch parses the list itself (see env.visible-devices-empty): empty there means no GPU.
      bool rocm_torch = any_torch_for(f, Vendor::amd);
      message = fmt::format("{} is set but empty on a machine with {} and no NVIDIA GPU: HIP treats an empty "
                            "value as unset{}. Likely a leftover; remove it.",
                            row.name, gpus,
                            rocm_torch ? ", but ROCm PyTorch reads it itself and then counts no GPU"
                                       : ", so it does nothing");
    } else if (hides_all(value, amd)) {
      message =
          fmt::format("{}={} is NVIDIA's variable, but HIP honours it when HIP_VISIBLE_DEVICES is not set: "
                      "it hides every one of the {} from HIP programs (PyTorch sees no GPU), while rocminfo "
                      "and other ROCr tools still list them. Unset it; select AMD GPUs with "
                      "ROCR_VISIBLE_DEVICES (or HIP_VISIBLE_DEVICES).",
                      row.name, value, gpus);
    } else {
      out.add(
          Status::info, row.name,
          fmt::format("{}={} is NVIDIA's variable; HIP honours it on this AMD machine (when "
                      "HIP_VISIBLE_DEVICES is not set), but ROCr and OpenCL programs do not, so tools may "
                      "disagree about the GPUs. AMD recommends ROCR_VISIBLE_DEVICES on Linux.",
                      row.name, value),
          evidence);
      continue;
    }
    out.add(Status::warn, row.name, message + where_set(f, row.name), evidence);
  }
  any = judge_vendor_variables(ctx, out) || any;
  if (!any) out.pass("", "no device-selection variable and no variable of one vendor's stack is set");
}

} // namespace gpudoctor::checks
