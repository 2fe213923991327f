// tool.timeout, tool.failed, tool.untrusted
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
    // A known line (knowledge tool_errors.yaml) says what it means; exit status 0 hides it from scripts.
    std::string meaning = t.known_error.empty() ? "" : fmt::format(" ({})", t.known_error);
    std::string zero = t.exit_code != 0
                           ? ""
                           : fmt::format(". It exited with status 0, so a script that tests only "
                                         "the exit status of {} takes this run for a success.",
                                         t.program);
    out.add(Status::info, t.program, fmt::format("{} failed: {}{}{}", t.program, t.failure, meaning, zero),
            evidence);
  }
  if (!any) out.pass("", "no vendor tool failed");
}

// Root runs only programs that no other user can change (docs/security.md, "Executing as root"): each one it
// skipped, or ran as its owner instead (a user's interpreter), is said, with the place that failed the rule.
void tool_untrusted(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  for (const auto& [key, p] : f.untrusted) {
    // "owned by alice" is the program's own; "/home/alice/bin is owned by alice" a place above it.
    std::string said = p.why.starts_with("/") ? fmt::format("{}: {}", p.path, p.why)
                                              : fmt::format("{} is {}", p.path, p.why);
    std::vector<std::string> evidence = {fmt::format("cmd {}: {}", key, said)};
    if (!p.ran_as.empty()) {
      evidence.push_back(fmt::format("cmd {}: ran as {}", key, p.ran_as));
      out.add_titled(Status::info, p.path, "A user's program inspected as its owner",
                     fmt::format("{}: another user can change it, so gpudoctor ran it as {}, not as root.",
                                 said, p.ran_as),
                     evidence);
    } else if (!p.instead.empty()) {
      evidence.push_back(fmt::format("cmd {}: ran {} instead", key, p.instead));
      out.add(Status::info, p.path,
              fmt::format("not run as root: {}. {}, further on the PATH, ran instead.", said, p.instead),
              evidence);
    } else {
      out.add(
          Status::warn, p.path,
          fmt::format("not run as root: {}. Another user can change it, so root does not run it, and what "
                      "it would have told is missing from this report. Install it where only root can "
                      "write, or run gpudoctor as the user it belongs to.",
                      said),
          evidence);
    }
  }
  if (!f.untrusted.empty()) return;
  const Identity& id = f.permissions.identity;
  if (id.uid != 0)
    return out.skip("", fmt::format("gpudoctor ran as {}, not as root: it runs what the PATH names",
                                    id.user.empty() ? "uid " + std::to_string(id.uid) : id.user));
  out.pass("", "every program gpudoctor ran as root is root's, in folders only root can write");
}

} // namespace gpudoctor::checks
