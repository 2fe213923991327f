// probe.alloc: the memory a device reports free must be allocatable, in one piece (most of it) and in chunks
// (nearly all of it). Less means another process holds memory the runtime does not count, fragmentation, or
// a limit (MIG slice, vGPU profile, a BAR or GTT limit on AMD).
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

constexpr double k_single_fraction = 0.75;
constexpr double k_chunked_fraction = 0.9;

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", double(bytes) / double(1ull << 30));
}

void judge(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  for (const auto& d : b.devices) {
    const std::string subject = device_subject(f, b, d.index);
    const ProbeAlloc* a = nullptr;
    for (const auto& x : b.allocs)
      if (x.device == d.index) a = &x;
    if (!a) {
      std::vector<std::string> evidence = failure_evidence(run, d.index);
      // The run's notes go between how it ended and its errors.
      for (std::size_t i = 0; i < run.notes.size(); ++i)
        evidence.insert(evidence.begin() + 1 + i, fmt::format("cmd {}: {}", run.key, run.notes[i]));
      if (d.integrated)
        out.skip(subject, "An integrated GPU: its memory is host memory, not probed");
      else
        out.add(Status::warn, subject, "Allocations on this device could not be tested", evidence);
      continue;
    }
    std::string single_error = a->single_error.empty() ? "" : fmt::format(": {}", a->single_error);
    std::string chunk_error = a->chunk_error.empty() ? "" : fmt::format(" (then {})", a->chunk_error);
    std::vector<std::string> evidence = {fmt::format(
        "cmd {}: free {} of {}; largest single {} (tried {}{}); in {} chunks {}{}", run.key,
        gib(a->free_bytes), gib(a->total_bytes), gib(a->largest_single_bytes), gib(a->tried_single_bytes),
        single_error, gib(a->chunk_bytes), gib(a->chunked_bytes), chunk_error)};
    const double free_bytes = double(a->free_bytes);
    std::vector<std::string> problems;
    if (double(a->largest_single_bytes) < free_bytes * k_single_fraction)
      problems.push_back(fmt::format("the largest single allocation is {}", gib(a->largest_single_bytes)));
    if (double(a->chunked_bytes) < free_bytes * k_chunked_fraction)
      problems.push_back(fmt::format("chunks add up to only {}", gib(a->chunked_bytes)));
    if (problems.empty()) {
      out.pass(subject,
               fmt::format("Allocated {} in one piece of the {} reported free", gib(a->largest_single_bytes),
                           gib(a->free_bytes)),
               evidence);
      continue;
    }
    out.add(
        Status::warn, subject,
        fmt::format("The device reports {} free, but {}. Large models fail with out-of-memory below the free "
                    "figure: look for other processes on the GPU (nvidia-smi, amd-smi process), MIG or vGPU "
                    "limits, or on AMD the GTT/VRAM split.",
                    gib(a->free_bytes), text::join(problems, " and ")),
        evidence);
  }
}

} // namespace

void probe_alloc(const CheckContext& ctx, Results& out) {
  for_each_run(ctx.facts, out, "alloc", Status::warn, judge);
}

} // namespace gpudoctor::checks
