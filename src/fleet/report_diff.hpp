// What changed on one machine between two reports (`gpudoctor diff`, docs/fleet.md "Comparing nodes"): the
// properties (versions, packages, variables, GPUs) and the conclusions (results new, gone, or of another
// status). A message that changes under the same status is no change of conclusion and is not listed.
#pragma once

#include "fleet/node_report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct PropertyChange {
  int rank = 0;
  std::string group, name;
  std::optional<std::string> before, after; // nullopt: absent on that side
};

struct ResultChange {
  std::string id, subject, key, title;
  std::optional<Status> before, after; // nullopt: no such result on that side (new / gone)
  std::string message;                 // the after side's (the before side's for a gone result)
};

// One side of a diff, as the outputs name it.
struct DiffSide {
  std::string input, origin, host, tool_version;
  StatusCounts counts{};
};

struct ReportDiff {
  DiffSide before, after;
  std::vector<PropertyChange> facts; // in table order
  std::vector<ResultChange> results; // worst after-status first, then by id and subject
  std::vector<std::string> notes;    // said before the changes: another gpudoctor judged, no GPU in common
  bool empty() const { return facts.empty() && results.empty(); }
};

// A group that only one kind of input has is compared only when both sides have it: a report holds no
// dpkg list, a snapshot judged now does ("System packages (dpkg)"). Every other property is compared, present
// or not.
ReportDiff diff_reports(const NodeReport& before, const NodeReport& after);

// Why two reports are not of one machine, or nothing when they may be: another host name, or (where both list
// NVIDIA GPU UUIDs) no GPU in common, as two machines that share a name like "localhost" have. A machine
// whose GPUs were all replaced is compared with `diff --force`.
std::optional<std::string> machine_mismatch(const NodeReport& before, const NodeReport& after);

} // namespace gpudoctor
