// gpu.memory-errors, gpu.throttled: what nvidia-smi -q says of each NVIDIA GPU's memory and clocks, and
// amdgpu's RAS counters. Uncorrectable counts are judged on the volatile counter (since the last driver load
// or GPU reset: the memory is bad now); the aggregate one is the GPU's life, repaired by retirement or
// remapping. With a previous reading (docs/fleet.md, "History") the counts are also judged as increases:
// uncorrectable errors repaired since then warn, corrected ones since then are worth knowing.
#include "checks/common.hpp"
#include "checks/history_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string subject_of(const Facts& f, const NvidiaSmiGpu& g) {
  const Gpu* gpu = f.gpu_of(g);
  return gpu ? gpu->subject() : fmt::format("GPU {}", g.bus_id);
}

bool any_health(const NvidiaGpuHealth& h) {
  return h.volatile_uncorrectable || h.aggregate_uncorrectable || h.remap_pending || h.remap_failure ||
         h.retirement_pending || h.retired_dbe || h.reset_required || h.recovery_action;
}

// The GPU's counts since the previous reading: lifetime (aggregate) counts compare across boots; a volatile
// count only within one.
struct EccGrowth {
  std::optional<long long> uncorrectable, correctable;
};

EccGrowth ecc_growth(const Facts& f, const NvidiaSmiGpu& g) {
  const PreviousGpuCounters* p = previous_counters(f, g.bus_id);
  if (!p) return {};
  const auto& h = g.health;
  EccGrowth out{growth(h.aggregate_uncorrectable, p->aggregate_uncorrectable),
                growth(h.aggregate_correctable, p->aggregate_correctable)};
  if (f.history.same_boot()) {
    if (!out.uncorrectable) out.uncorrectable = growth(h.volatile_uncorrectable, p->volatile_uncorrectable);
    if (!out.correctable) out.correctable = growth(h.volatile_correctable, p->volatile_correctable);
  }
  return out;
}

std::string plural(long long n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

void judge_nvidia(const Facts& f, const NvidiaSmiGpu& g, Results& out) {
  const auto& h = g.health;
  const std::string key =
      f.nvidia.smi_driver_version ? f.nvidia.smi_driver_version.source : "cmd nvidia-smi-xml";
  const std::string src = fmt::format("{}: GPU {}: ", key, g.bus_id);
  std::vector<std::string> evidence;
  auto cite = [&](const char* what, const auto& v) {
    if (v) evidence.push_back(fmt::format("{}{} {}", src, what, *v));
  };
  cite("ECC mode", h.ecc_mode);
  cite("volatile uncorrectable ECC errors", h.volatile_uncorrectable);
  cite("aggregate uncorrectable ECC errors", h.aggregate_uncorrectable);
  cite("aggregate corrected ECC errors", h.aggregate_correctable);
  EccGrowth grown = ecc_growth(f, g);
  if (grown.uncorrectable || grown.correctable)
    evidence.push_back(previous_evidence(
        f, fmt::format("GPU {}: {} uncorrectable and {} corrected ECC errors since", g.bus_id,
                       grown.uncorrectable ? std::to_string(*grown.uncorrectable) : "?",
                       grown.correctable ? std::to_string(*grown.correctable) : "?")));
  auto yes = [](const std::optional<bool>& b) { return b && *b; };
  auto cite_flag = [&](const char* what, const std::optional<bool>& b) {
    if (b) evidence.push_back(fmt::format("{}{}: {}", src, what, *b ? "Yes" : "No"));
  };
  cite_flag("remapped rows pending", h.remap_pending);
  cite_flag("remapping failure occurred", h.remap_failure);
  cite_flag("page retirement pending", h.retirement_pending);
  cite("retired pages (double-bit)", h.retired_dbe);
  cite_flag("reset required", h.reset_required);
  cite("GPU recovery action", h.recovery_action);

  std::string subject = subject_of(f, g);
  std::string action = h.recovery_action.value_or("None");
  if (yes(h.remap_failure))
    return out.add(
        Status::error, subject,
        "The GPU could not remap a failing memory row (\"Remapping Failure Occurred: Yes\"): its memory "
        "has errors it can no longer repair. Drain it and have it serviced or replaced.",
        evidence);
  if (h.volatile_uncorrectable.value_or(0) > 0 || action == "Reboot" || action == "Node Reboot")
    return out.add(
        Status::error, subject,
        fmt::format("{} uncorrectable ECC error{} since the last GPU reset{}: programs on this GPU got "
                    "(or were stopped before using) corrupt data. Drain the GPU and reset it "
                    "(nvidia-smi -r) or reboot, so the bad memory is retired or remapped; repeated, "
                    "have it serviced.",
                    h.volatile_uncorrectable.value_or(0),
                    h.volatile_uncorrectable.value_or(0) == 1 ? "" : "s",
                    action != "None" ? fmt::format(" (the driver's recovery action: {})", action) : ""),
        evidence);
  if (yes(h.remap_pending) || yes(h.retirement_pending) || yes(h.reset_required) || action != "None")
    return out.add(
        Status::warn, subject,
        fmt::format("A memory repair waits for a GPU reset ({}): until then the GPU runs with the failing "
                    "memory marked. Drain the GPU and reset it (sudo nvidia-smi -r) or reboot when "
                    "convenient.",
                    yes(h.remap_pending)        ? "a row remap is pending"
                    : yes(h.retirement_pending) ? "a page retirement is pending"
                    : action != "None"          ? fmt::format("recovery action {}", action)
                                                : "reset required"),
        evidence);
  if (grown.uncorrectable.value_or(0) > 0)
    return out.add(
        Status::warn, subject,
        fmt::format(
            "{} since {}, repaired (nothing pending): memory that keeps failing is a GPU to "
            "service. Watch the count; if it grows again, drain the GPU and have it serviced.",
            plural(*grown.uncorrectable, "new uncorrectable ECC error", "new uncorrectable ECC errors"),
            previous_words(f)),
        evidence);
  std::string corrected =
      grown.correctable.value_or(0) > 0
          ? fmt::format(" {} since {} (corrected: no data was lost).",
                        plural(*grown.correctable, "ECC error was corrected", "ECC errors were corrected"),
                        previous_words(f))
          : "";
  if (h.aggregate_uncorrectable.value_or(0) > 0)
    return out.add(
        Status::info, subject,
        fmt::format("No uncorrectable error since the last reset and nothing pending; over its life the "
                    "GPU had {} uncorrectable ECC error{}, which were repaired.{}",
                    *h.aggregate_uncorrectable, *h.aggregate_uncorrectable == 1 ? "" : "s", corrected),
        evidence);
  if (!corrected.empty()) return out.add(Status::info, subject, corrected.substr(1), evidence);
  out.pass(subject, "no uncorrectable ECC error, nothing pending", evidence);
}

// amdgpu's counts are since the driver loaded: they compare with a reading of the same boot.
void judge_amd(const Facts& f, const Gpu& gpu, Results& out) {
  std::vector<std::string> evidence, bad;
  const PreviousGpuCounters* before = f.history.same_boot() ? previous_counters(f, gpu.bdf) : nullptr;
  long long new_ue = 0, new_ce = 0;
  for (const auto& r : gpu.ras) {
    evidence.push_back(fmt::format("{}: ue {} ce {}", r.source, r.ue, r.ce));
    if (r.ue > 0) bad.push_back(fmt::format("{} {}", r.block, r.ue));
    if (!before) continue;
    auto then = std::find_if(before->ras.begin(), before->ras.end(),
                             [&](const auto& p) { return p.block == r.block; });
    long long ue0 = then == before->ras.end() ? 0 : then->ue, ce0 = then == before->ras.end() ? 0 : then->ce;
    new_ue += *growth(r.ue, ue0);
    new_ce += *growth(r.ce, ce0);
  }
  if (before)
    evidence.push_back(previous_evidence(
        f, fmt::format("{}: {} uncorrectable and {} corrected errors since", gpu.bdf, new_ue, new_ce)));
  std::string since =
      !before       ? ""
      : new_ue == 0 ? fmt::format(" None is new since {}.", previous_words(f))
                    : fmt::format(" {} since {}.", plural(new_ue, "is new", "are new"), previous_words(f));
  if (bad.empty()) {
    if (new_ce > 0)
      return out.add(Status::info, gpu.subject(),
                     fmt::format("amdgpu corrected {} since {}; no uncorrectable error (no data was lost).",
                                 plural(new_ce, "error", "errors"), previous_words(f)),
                     evidence);
    return out.pass(gpu.subject(), "amdgpu's RAS counters show no uncorrectable error", evidence);
  }
  out.add(
      Status::error, gpu.subject(),
      fmt::format("amdgpu counted uncorrectable errors since the driver loaded ({}): data on this GPU may be "
                  "corrupt.{} Reboot so the bad pages are retired (amdgpu keeps them in its bad-page table); "
                  "repeated, have the GPU serviced.",
                  text::join(bad, ", "), since),
      evidence);
}

} // namespace

void gpu_memory_errors(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& g : f.nvidia.smi_gpus) {
    if (!any_health(g.health) && ecc_growth(f, g).correctable.value_or(0) == 0) continue;
    any = true;
    judge_nvidia(f, g, out);
  }
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == Vendor::amd && !gpu.ras.empty()) {
      any = true;
      judge_amd(f, gpu, out);
    }
  if (!any) out.skip("", "no GPU reports ECC or RAS counters (nvidia-smi -q, amdgpu ras/)");
}

void gpu_throttled(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.nvidia.smi_gpus.empty()) return out.skip("", "nvidia-smi reported no GPU");
  const std::string smi =
      f.nvidia.smi_driver_version ? f.nvidia.smi_driver_version.source : "cmd nvidia-smi-xml";
  for (const auto& g : f.nvidia.smi_gpus) {
    std::string subject = subject_of(f, g);
    const auto& held = g.health.clocks_held_by;
    std::vector<std::string> evidence;
    for (const auto& r : held)
      evidence.push_back(fmt::format("{}: GPU {}: clocks event reason {}: Active", smi, g.bus_id, r));
    if (held.empty()) {
      out.pass(subject, "no hardware slowdown, thermal slowdown or power brake holds the clocks down");
      continue;
    }
    bool thermal = text::contains(text::join(held, ","), "Thermal");
    bool brake = text::contains(text::join(held, ","), "Power Brake");
    out.add(Status::warn, subject,
            fmt::format(
                "The GPU's clocks are held down now ({}): it runs well below its speed. {}",
                text::join(held, ", "),
                thermal ? "It is too hot: check its fans, the airflow and the room, and dust."
                : brake ? "The power brake is asserted: the system's power supply or the board signals a "
                          "power problem; check the PSU, the cables and the BMC's power events."
                        : "The hardware slows it (thermal or power protection): check cooling and power."),
            evidence);
  }
}

} // namespace gpudoctor::checks
