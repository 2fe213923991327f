// tool.timeout, tool.failed
#include "checks/common.hpp"
#include "checks/registry.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// A process stuck in the kernel (uninterruptible sleep) outlives SIGKILL: gpudoctor leaves it and says so.
const char* k_unkillable = " It did not end when killed (stuck in the kernel, as in a wedged driver): it is "
                           "still running, and gpudoctor did not wait for it.";

// "cmd nvidia-smi: exit 2", or "(signal)" for a process a signal ended.
std::string exit_evidence(const ToolRun& t) {
  return fmt::format("cmd {}: exit {}", t.key, t.exit_code ? std::to_string(*t.exit_code) : "(signal)");
}

} // namespace

void tool_timeout(const CheckContext& ctx, Results& out) {
  bool any = false;
  for (const auto& t : ctx.facts.tools) {
    if (!t.timed_out && !t.unkillable) continue;
    any = true;
    std::string ran = t.timed_out
                          ? fmt::format("cmd {}: killed at its time limit after {} ms", t.key, t.duration_ms)
                          : exit_evidence(t);
    std::string message =
        t.timed_out
            ? fmt::format("{} did not finish within {} ms and was killed: a hung driver or GPU often does "
                          "this. Facts it would have given are missing.",
                          t.program, t.timeout_ms)
            : fmt::format("{} finished, but a process it started had to be killed.", t.program);
    std::vector<std::string> evidence = {ran};
    if (t.unkillable) {
      message += k_unkillable;
      evidence.push_back(fmt::format("cmd {}: still there after SIGKILL (unkillable)", t.key));
    }
    out.add(Status::warn, t.program, message, evidence);
  }
  if (!any) out.pass("", "every vendor tool finished in time");
}

void tool_failed(const CheckContext& ctx, Results& out) {
  bool any = false;
  for (const auto& t : ctx.facts.tools) {
    if (t.timed_out || !t.found || t.failure.empty()) continue;
    any = true;
    std::vector<std::string> evidence = {exit_evidence(t)};
    for (const auto& line : t.evidence_lines)
      evidence.push_back(fmt::format("cmd {}: {}", t.key, line));
    if (t.evidence_lines.empty()) evidence.push_back(fmt::format("cmd {}: {}", t.key, t.failure));
    out.add(Status::info, t.program, fmt::format("{} failed: {}", t.program, t.failure), evidence);
  }
  if (!any) out.pass("", "no vendor tool failed");
}

} // namespace gpudoctor::checks
