// probe.timeout: a probe killed at its time limit (with its whole process group) means a hung GPU or a
// wedged driver; the probes after it were not run.
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"

namespace gpudoctor::checks {

namespace {

void timed_out(const std::string& subject, const std::string& what, const ProbeRun& run, Results& out) {
  out.add(Status::error, subject,
          "The " + what + " did not finish within " + std::to_string(run.timeout_ms) +
              " ms and was killed: a hung GPU or a wedged driver does this. Look at dmesg (NVRM Xid, amdgpu "
              "ring timeouts); a GPU reset or a reboot usually clears it.",
          {run_evidence(run)}, {"reboot"});
}

} // namespace

void probe_timeout(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!skip_without_probes(f, out)) return;
  int finished = 0;
  for (const auto& b : f.probes.backends)
    for (const auto& run : b.runs) {
      if (run.timed_out)
        timed_out(runtime_subject(b), b.title() + " " + run.name + " probe", run, out);
      else if (run.run)
        ++finished;
    }
  if (const auto& fw = f.probes.framework) {
    if (fw->run.timed_out && fw->imported)
      timed_out("python3 (" + fw->python + ")", "PyTorch probe (past import torch, in its CUDA/HIP calls)",
                fw->run, out);
    else if (fw->run.timed_out)
      // Still importing: that is seconds of CPU and disk (docs/probes.md), seldom the GPU.
      out.add(
          Status::error, "python3 (" + fw->python + ")",
          "The PyTorch probe did not get past `import torch` within " + std::to_string(fw->run.timeout_ms) +
              " ms and was killed. Importing PyTorch takes seconds (2.6 to 4.4 s for PyTorch 2.11 on three "
              "16-core H200 machines): give it a longer --probe-timeout. If it never finishes, look "
              "for a slow or hung disk under site-packages, or a hung GPU (dmesg: NVRM Xid).",
          {run_evidence(fw->run)});
    else if (fw->run.run)
      ++finished;
  }
  if (!out.items().empty()) return;
  if (finished == 0)
    out.skip("", "no probe ran");
  else
    out.pass("", "every probe finished in time (" + std::to_string(finished) + " run)");
}

} // namespace gpudoctor::checks
