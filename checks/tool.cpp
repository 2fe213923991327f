// tool.timeout, tool.failed
#include "checks/common.hpp"
#include "checks/registry.hpp"

namespace gpudoctor::checks {

void tool_timeout(const CheckContext& ctx, Results& out) {
  bool any = false;
  for (const auto& t : ctx.facts.tools) {
    if (!t.timed_out) continue;
    any = true;
    out.add(Status::warn, t.program,
            t.program + " did not finish within " + std::to_string(t.timeout_ms) +
                " ms and was killed: a hung "
                "driver or GPU often does this. Facts it would have given are missing.",
            {"cmd " + t.key + ": killed at its time limit after " + std::to_string(t.duration_ms) + " ms"});
  }
  if (!any) out.pass("", "every vendor tool finished in time");
}

void tool_failed(const CheckContext& ctx, Results& out) {
  bool any = false;
  for (const auto& t : ctx.facts.tools) {
    if (t.timed_out || !t.found || t.failure.empty()) continue;
    any = true;
    std::vector<std::string> evidence = {
        "cmd " + t.key + ": exit " + (t.exit_code ? std::to_string(*t.exit_code) : std::string("(signal)"))};
    for (const auto& line : t.evidence_lines)
      evidence.push_back("cmd " + t.key + ": " + line);
    if (t.evidence_lines.empty()) evidence.push_back("cmd " + t.key + ": " + t.failure);
    out.add(Status::info, t.program, t.program + " failed: " + t.failure, evidence);
  }
  if (!any) out.pass("", "no vendor tool failed");
}

} // namespace gpudoctor::checks
