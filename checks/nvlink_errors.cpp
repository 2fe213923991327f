// gpu.nvlink-errors: NVLink error counts that grew since the previous reading. The counts of `nvidia-smi
// nvlink -e` add up from driver load, so a number alone says nothing of now: they are judged as an increase
// between two readings of one boot (checks/history_common.hpp), as DCGM's health watch judges them: a replay
// or recovery error fails a link (DCGM_LIMIT_MAX_LWLINK_ERROR, 1), CRC errors matter only at 100 or more a
// second (DCGM_LIMIT_MAX_LWLINK_CRC_ERROR: "RM has informed us that CRC errors only matter at rates of 100+
// per second"), both in DCGM's dcgmlib/src/DcgmGpuHardwareLimits.h.
#include "checks/common.hpp"
#include "checks/history_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"
#include "util/utc_time.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

constexpr long long k_link_error_limit = 1; // replay or recovery errors that fail a link
constexpr double k_crc_rate_limit = 100.0;  // CRC errors a second that matter

const PreviousGpuCounters::Nvlink* previous_link(const PreviousGpuCounters* p, int link) {
  if (!p) return nullptr;
  for (const auto& l : p->nvlinks)
    if (l.link == link) return &l;
  return nullptr;
}

// Seconds between the previous reading and this run, when both times were recorded.
std::optional<double> seconds_since_previous(const Facts& f) {
  const auto& p = *f.history.previous;
  auto then = utc::parse_iso8601(p.time), now = utc::parse_iso8601(p.read_at);
  if (!then || !now || *now <= *then) return std::nullopt;
  return static_cast<double>(*now - *then);
}

std::string counts_words(long long replay, long long recovery, long long crc) {
  return fmt::format("{} replay, {} recovery, {} CRC", replay, recovery, crc);
}

} // namespace

void gpu_nvlink_errors(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!f.nvidia.nvlink_errors_read)
    return out.skip("", "nvidia-smi nvlink -e was not asked (no active NVLink on this machine)");
  const bool comparable = f.history.same_boot();
  const std::optional<double> seconds = comparable ? seconds_since_previous(f) : std::nullopt;
  bool any = false;
  for (const auto& g : f.nvidia.nvlink) {
    const NvidiaSmiGpu* smi = f.smi_of(g);
    const Gpu* gpu = smi ? f.gpu_of(*smi) : nullptr;
    const std::string subject = gpu ? gpu->subject() : fmt::format("GPU {}", g.index);
    const PreviousGpuCounters* before = comparable && smi ? previous_counters(f, smi->bus_id) : nullptr;
    if (before && before->nvlinks.empty()) before = nullptr; // a report of a run that read no NVLink counts
    // Totals since the driver loaded, and what grew since the reading, per link.
    long long replay = 0, recovery = 0, crc = 0, grown_replay = 0, grown_recovery = 0, grown_crc = 0;
    std::vector<std::string> failing,
        crc_links; // links with replay or recovery errors since; with CRC errors
    bool counted = false;
    for (const auto& l : g.links) {
      if (!l.replay_errors && !l.recovery_errors && !l.crc_errors) continue;
      counted = true;
      replay += l.replay_errors.value_or(0);
      recovery += l.recovery_errors.value_or(0);
      crc += l.crc_errors.value_or(0);
      const PreviousGpuCounters::Nvlink* p = previous_link(before, l.link);
      if (!p) continue;
      long long r = growth(l.replay_errors, p->replay).value_or(0);
      long long v = growth(l.recovery_errors, p->recovery).value_or(0);
      long long c = growth(l.crc_errors, p->crc).value_or(0);
      grown_replay += r;
      grown_recovery += v;
      grown_crc += c;
      if (r + v >= k_link_error_limit) failing.push_back(std::to_string(l.link));
      if (c > 0) crc_links.push_back(std::to_string(l.link));
    }
    if (!counted) continue;
    any = true;
    std::vector<std::string> evidence{fmt::format("cmd nvidia-smi-nvlink-e: GPU {} ({}): {} errors since the "
                                                  "driver loaded, all links",
                                                  g.index, g.uuid, counts_words(replay, recovery, crc))};
    if (!before) {
      std::string why = !f.history.previous ? "no report is kept in the history"
                        : !comparable       ? "the last kept report is of another boot"
                                            : "the last kept report has no NVLink counts of this GPU";
      if (replay + recovery + crc == 0) {
        out.pass(subject, fmt::format("no NVLink error since the driver loaded ({} links)", g.links.size()));
        continue;
      }
      out.add(
          Status::info, subject,
          fmt::format("NVLink counts since the driver loaded: {} errors. Counts alone do not say when they "
                      "happened and {}, so nothing is judged; a later run with `gpudoctor check --history` "
                      "compares against this one.",
                      counts_words(replay, recovery, crc), why),
          evidence);
      continue;
    }
    evidence.push_back(previous_evidence(
        f, fmt::format("the counts of {} NVLinks of GPU {} then", before->nvlinks.size(), before->bdf)));
    if (!failing.empty()) {
      out.add(Status::error, subject,
              fmt::format(
                  "NVLink {} {} of {} counted {} replay and {} recovery errors since {}: the link retrains "
                  "or resends, traffic over it stalls, and NCCL jobs slow down or hang. DCGM fails a link "
                  "at one such error. Drain the GPU, reset it or reboot, and watch the counts; if they "
                  "grow again, the board or its NVLink bridge needs service.",
                  failing.size() == 1 ? "link" : "links", text::join(failing, ", "), g.name, grown_replay,
                  grown_recovery, previous_words(f)),
              evidence);
      out.act(Action::step(fmt::format(
          "Drain GPU {} (its jobs), reboot or run sudo nvidia-smi -r -i {} once no process uses it, then run "
          "nvidia-smi nvlink -e twice a few minutes apart: counts that grow again need the board serviced",
          g.index, g.index)));
      continue;
    }
    if (grown_crc > 0 && seconds && static_cast<double>(grown_crc) / *seconds >= k_crc_rate_limit) {
      out.add(
          Status::warn, subject,
          fmt::format("NVLink {} {} of {} counted {} CRC errors in the {:.0f} s since {} ({:.0f} a second): "
                      "from 100 a second on, the driver says they cost bandwidth (DCGM's limit). Watch the "
                      "counts; a link that keeps this rate needs its board or bridge checked.",
                      crc_links.size() == 1 ? "link" : "links", text::join(crc_links, ", "), g.name,
                      grown_crc, *seconds, previous_words(f), static_cast<double>(grown_crc) / *seconds),
          evidence);
      out.act(Action::step(fmt::format("Run nvidia-smi nvlink -e -i {} a minute apart and compare the CRC "
                                       "counts; at 100 or more a second, "
                                       "have the board or its NVLink bridge checked",
                                       g.index)));
      continue;
    }
    std::string crc_note =
        grown_crc > 0 ? fmt::format(" ({} CRC errors, below DCGM's 100 a second{})", grown_crc,
                                    seconds ? "" : "; the time of the reading is unknown, so no rate")
                      : "";
    out.pass(subject,
             fmt::format("no NVLink replay or recovery error since {}{}", previous_words(f), crc_note),
             evidence);
  }
  if (!any) out.skip("", "nvidia-smi nvlink -e reported no counts");
}

} // namespace gpudoctor::checks
