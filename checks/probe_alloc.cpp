// probe.alloc: the memory a device reports free must be allocatable, in one piece (most of it) and in chunks
// (nearly all of it). Less means another process holds memory the runtime does not count, fragmentation, or
// a limit (MIG slice, vGPU profile, a BAR or GTT limit on AMD).
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"

namespace gpudoctor::checks {

namespace {

constexpr double k_single_fraction = 0.75;
constexpr double k_chunked_fraction = 0.9;

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
  return buf;
}

void judge(const Facts& f, const BackendProbes& b, const ProbeRun& run, Results& out) {
  for (const auto& d : b.devices) {
    const std::string subject = device_subject(f, b, d.index);
    const ProbeAlloc* a = nullptr;
    for (const auto& x : b.allocs)
      if (x.device == d.index) a = &x;
    if (!a) {
      std::vector<std::string> evidence = {run_evidence(run)};
      for (const auto& note : run.notes)
        evidence.push_back("cmd " + run.key + ": " + note);
      for (const ProbeError* e : errors_for(run, d.index))
        evidence.push_back(error_evidence(run, *e));
      if (d.integrated)
        out.skip(subject, "An integrated GPU: its memory is host memory, not probed");
      else
        out.add(Status::warn, subject, "Allocations on this device could not be tested", evidence);
      continue;
    }
    std::vector<std::string> evidence = {
        "cmd " + run.key + ": free " + gib(a->free_bytes) + " of " + gib(a->total_bytes) +
        "; largest single " + gib(a->largest_single_bytes) + " (tried " + gib(a->tried_single_bytes) +
        (a->single_error.empty() ? "" : ": " + a->single_error) + "); in " + gib(a->chunk_bytes) +
        " chunks " + gib(a->chunked_bytes) +
        (a->chunk_error.empty() ? "" : " (then " + a->chunk_error + ")")};
    const double free_bytes = double(a->free_bytes);
    std::vector<std::string> problems;
    if (double(a->largest_single_bytes) < free_bytes * k_single_fraction)
      problems.push_back("the largest single allocation is " + gib(a->largest_single_bytes));
    if (double(a->chunked_bytes) < free_bytes * k_chunked_fraction)
      problems.push_back("chunks add up to only " + gib(a->chunked_bytes));
    if (problems.empty()) {
      out.pass(subject,
               "Allocated " + gib(a->largest_single_bytes) + " in one piece of the " + gib(a->free_bytes) +
                   " reported free",
               evidence);
      continue;
    }
    std::string msg = "The device reports " + gib(a->free_bytes) + " free, but ";
    for (std::size_t i = 0; i < problems.size(); ++i)
      msg += (i ? " and " : "") + problems[i];
    out.add(
        Status::warn, subject,
        msg + ". Large models fail with out-of-memory below the free figure: look for other processes on the "
              "GPU (nvidia-smi, amd-smi process), MIG or vGPU limits, or on AMD the GTT/VRAM split.",
        evidence);
  }
}

} // namespace

void probe_alloc(const CheckContext& ctx, Results& out) {
  if (!skip_without_probes(ctx.facts, out)) return;
  for_each_run(ctx.facts, out, "alloc", Status::warn,
               [&](const BackendProbes& b, const ProbeRun& run) { judge(ctx.facts, b, run, out); });
}

} // namespace gpudoctor::checks
