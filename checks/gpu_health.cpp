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
  const std::string key = smi_source(f);
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

// amdgpu's bad-page table: what it says, and how bad (F: memory still in use; P: waits for a reboot).
struct PagesVerdict {
  Status status = Status::pass;
  std::string said;
};

PagesVerdict judge_bad_pages(const VramBadPages& p, std::vector<std::string>& evidence) {
  evidence.push_back(fmt::format("{}: {} retired (R), {} pending (P), {} not retired (F)", p.source,
                                 p.reserved, p.pending, p.failed));
  for (const auto& line : p.lines)
    evidence.push_back(fmt::format("{}: {}", p.source, line));
  if (p.failed > 0)
    return {Status::error,
            fmt::format(
                " amdgpu could not retire {} of VRAM with uncorrectable errors (F in its bad-page table): "
                "programs may still be given that memory. Have the GPU serviced.",
                plural(static_cast<long long>(p.failed), "page", "pages"))};
  if (p.pending > 0)
    return {
        Status::warn,
        fmt::format(" {} of VRAM with uncorrectable errors {} for retirement (P in amdgpu's bad-page table): "
                    "reboot so that amdgpu retires {}.",
                    plural(static_cast<long long>(p.pending), "page", "pages"),
                    p.pending == 1 ? "waits" : "wait", p.pending == 1 ? "it" : "them")};
  if (p.reserved > 0)
    return {Status::info,
            fmt::format(" amdgpu retired {} of VRAM that had uncorrectable errors and keeps {} out of use; a "
                        "number that keeps growing means failing memory (have the GPU serviced).",
                        plural(static_cast<long long>(p.reserved), "page", "pages"),
                        p.reserved == 1 ? "it" : "them")};
  return {};
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
  PagesVerdict pages = gpu.bad_pages ? judge_bad_pages(*gpu.bad_pages, evidence) : PagesVerdict{};
  std::string since =
      !before       ? ""
      : new_ue == 0 ? fmt::format(" None is new since {}.", previous_words(f))
                    : fmt::format(" {} since {}.", plural(new_ue, "is new", "are new"), previous_words(f));
  if (bad.empty()) {
    if (pages.status != Status::pass)
      return out.add(pages.status, gpu.subject(),
                     fmt::format("No uncorrectable error since the driver loaded.{}", pages.said), evidence);
    if (new_ce > 0)
      return out.add(Status::info, gpu.subject(),
                     fmt::format("amdgpu corrected {} since {}; no uncorrectable error (no data was lost).",
                                 plural(new_ce, "error", "errors"), previous_words(f)),
                     evidence);
    return out.pass(gpu.subject(), "amdgpu's RAS counters show no uncorrectable error", evidence);
  }
  // The bad-page table, where read, says what became of the pages; else the reboot that retires them.
  std::string pages_said =
      pages.status != Status::pass
          ? pages.said
          : std::string(" Reboot so the bad pages are retired (amdgpu keeps them in its bad-page table); "
                        "repeated, have the GPU serviced.");
  out.add(
      Status::error, gpu.subject(),
      fmt::format("amdgpu counted uncorrectable errors since the driver loaded ({}): data on this GPU may be "
                  "corrupt.{}{}",
                  text::join(bad, ", "), since, pages_said),
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
    if (gpu.vendor == Vendor::amd && (!gpu.ras.empty() || gpu.bad_pages)) {
      any = true;
      judge_amd(f, gpu, out);
    }
  if (!any) out.skip("", "no GPU reports ECC or RAS counters (nvidia-smi -q, amdgpu ras/)");
}

// amdgpu's hwmon: a temperature at or above its critical limit is where the firmware throttles the clocks
// (the kernel's amdgpu thermal documentation: temp*_crit; temp*_emergency shuts the GPU down).
void judge_amd_temperatures(const Gpu& gpu, Results& out) {
  std::vector<std::string> evidence, hot, readings;
  for (const auto& t : gpu.sensors.temperatures) {
    evidence.push_back(fmt::format("{}: {} {:.0f} °C, crit {}, emergency {}", gpu.sensors.source, t.label,
                                   t.celsius, t.crit ? fmt::format("{:.0f} °C", *t.crit) : "none",
                                   t.emergency ? fmt::format("{:.0f} °C", *t.emergency) : "none"));
    readings.push_back(fmt::format("{} {:.0f} °C", t.label, t.celsius));
    if (t.crit && *t.crit > 0 && t.celsius >= *t.crit)
      hot.push_back(fmt::format("{} {:.0f} °C, its critical limit {:.0f} °C{}", t.label, t.celsius, *t.crit,
                                t.emergency ? fmt::format(" (shutdown at {:.0f} °C)", *t.emergency) : ""));
  }
  if (hot.empty())
    return out.pass(gpu.subject(), fmt::format("below the critical limits ({})", text::join(readings, ", ")),
                    evidence);
  out.add(
      Status::warn, gpu.subject(),
      fmt::format("The GPU is at its critical temperature ({}): the firmware holds its clocks down to cool "
                  "it, so it runs well below its speed. Check its fans, the airflow and the room, and dust.",
                  text::join(hot, "; ")),
      evidence);
  out.act(Action::step(
      "Check the GPU's cooling while it works: its fans, the airflow through the case or chassis, "
      "the room's temperature and dust (`sensors` shows its temperatures and fan speed)."));
}

void gpu_throttled(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool amd = false;
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == Vendor::amd && !gpu.sensors.temperatures.empty()) {
      amd = true;
      judge_amd_temperatures(gpu, out);
    }
  if (f.nvidia.smi_gpus.empty()) {
    if (!amd) out.skip("", "nvidia-smi reported no GPU, and no AMD GPU has hwmon temperatures");
    return;
  }
  const std::string smi = smi_source(f);
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
