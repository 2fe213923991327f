// probe.timeout: a probe killed at its time limit (with its whole process group) means a hung GPU or a
// wedged driver; the probes after it were not run.
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

void timed_out(const std::string& subject, const std::string& what, const ProbeRun& run, Results& out) {
  out.add(Status::error, subject,
          fmt::format("The {} did not finish within {} ms and was killed: a hung GPU or a wedged driver does "
                      "this. Look at dmesg (NVRM Xid, amdgpu ring timeouts); a GPU reset or a reboot usually "
                      "clears it.",
                      what, run.timeout_ms),
          {run_evidence(run)});
}

} // namespace

void probe_timeout(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!skip_without_probes(f, out)) return;
  int finished = 0;
  for (const auto& b : f.probes.backends)
    for (const auto& run : b.runs) {
      if (run.timed_out)
        timed_out(runtime_subject(b), fmt::format("{} {} probe", b.title(), run.name), run, out);
      else if (run.run)
        ++finished;
    }
  if (const auto& fw = f.probes.framework) {
    if (fw->run.timed_out && fw->imported)
      timed_out(fmt::format("python3 ({})", fw->python),
                "PyTorch probe (past import torch, in its CUDA/HIP calls)", fw->run, out);
    else if (fw->run.timed_out)
      // Still importing: that is seconds of CPU and disk (docs/probes.md), seldom the GPU.
      out.add(Status::error, fmt::format("python3 ({})", fw->python),
              fmt::format(
                  "The PyTorch probe did not get past `import torch` within {} ms and was killed. Importing "
                  "PyTorch takes seconds (2.6 to 4.4 s for PyTorch 2.11 on three 16-core H200 machines): "
                  "give it a longer --probe-timeout. If it never finishes, look for a slow or hung disk "
                  "under site-packages, or a hung GPU (dmesg: NVRM Xid).",
                  fw->run.timeout_ms),
              {run_evidence(fw->run)}, no_fix);
    else if (fw->run.run)
      ++finished;
  }
  if (!out.items().empty()) return;
  if (finished == 0)
    out.skip("", "no probe ran");
  else
    out.pass("", fmt::format("every probe finished in time ({} run)", finished));
}

} // namespace gpudoctor::checks
