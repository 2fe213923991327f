// The vendor tools gpudoctor ran, and the programs it did not run as root.
#pragma once

#include "system/system_view.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// A run of a vendor tool, summarised for checks (tool.timeout, tool.failed).
struct ToolRun {
  std::string key;
  std::string program;
  bool found = false;
  bool timed_out = false;
  bool unkillable = false; // it, or a process it started, was still there after SIGKILL (left running)
  std::optional<int> exit_code;
  long duration_ms = 0;
  long timeout_ms = 0;
  std::string failure; // a message that says something, e.g. "ROCk module is NOT loaded"
  std::vector<std::string> evidence_lines;
  std::string known_error; // what the line of knowledge tool_errors.yaml that names `failure` tells
  // Its stdout and stderr, colour codes removed: the first and the last 32 KiB, for the link stage's match of
  // tool_errors.yaml (not in the report).
  std::string output;
};

// A program root did not run as itself, and the command it was for (SystemView::untrusted_programs).
struct UntrustedRun {
  std::string key;
  UntrustedProgram program;
};

} // namespace gpudoctor
