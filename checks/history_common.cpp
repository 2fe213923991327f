#include "checks/history_common.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

const PreviousGpuCounters* previous_counters(const Facts& f, std::string_view bus_id) {
  if (!f.history.previous || bus_id.empty()) return nullptr;
  for (const auto& g : f.history.previous->gpus)
    if (g.bdf == bus_id) return &g;
  return nullptr;
}

std::optional<long long> growth(std::optional<long long> now, std::optional<long long> before) {
  if (!now || !before) return std::nullopt;
  return *now >= *before ? *now - *before : *now;
}

std::optional<EventGrowth> event_growth(const Facts& f, const KernelEvent& e) {
  if (e.boot != 0 || !f.history.same_boot()) return std::nullopt;
  for (const auto& p : f.history.previous->events)
    if (p.kind == e.kind && p.code == e.code && p.pci == e.pci) // fewer now: the ring buffer was cleared
      return EventGrowth{p.count, e.count >= p.count ? e.count - p.count : e.count};
  return EventGrowth{0, e.count};
}

std::string event_growth_words(const Facts& f, const std::optional<EventGrowth>& g) {
  if (!g) return {};
  if (g->fresh == 0) return fmt::format(" None new since {}.", previous_words(f));
  return fmt::format(" {} new since {}.", g->fresh, previous_words(f));
}

std::string previous_words(const Facts& f) {
  return f.history.previous ? fmt::format("the last kept report ({})", f.history.previous->time)
                            : std::string("the last kept report");
}

std::string previous_evidence(const Facts& f, const std::string& what) {
  const auto& p = *f.history.previous;
  return fmt::format("history: {} (kept {}, gpudoctor {}): {}", p.report, p.time,
                     p.tool_version.empty() ? "?" : p.tool_version, what);
}

} // namespace gpudoctor::checks
