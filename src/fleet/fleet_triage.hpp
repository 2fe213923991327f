// Who fails what, worst first (`fleet`'s first table, text and HTML: docs/fleet.md "gpudoctor fleet"): the
// nodes with an error or a warning, most errors first, each with the checks it fails; and those checks, most
// error nodes first. Bounded: a fleet of 30,000 nodes shows its worst, and counts the rest.
#pragma once

#include "fleet/fleet.hpp"

#include <cstddef>
#include <map>
#include <vector>

namespace gpudoctor {

struct TriageNode {
  std::size_t node = 0;                 // index into Fleet::nodes
  int errors = 0, warnings = 0;         // checks failing on it with that worst status
  std::map<std::size_t, Status> checks; // index into Fleet::checks -> its worst status there (error, warn)
};

struct Triage {
  std::vector<TriageNode> nodes;   // worst first, at most the bound asked for
  std::size_t more_nodes = 0;      // nodes with a problem beyond it
  std::vector<std::size_t> checks; // indexes into Fleet::checks that fail somewhere, most error nodes first
};

// The worst `max_nodes` nodes with a problem.
Triage triage(const Fleet& fleet, std::size_t max_nodes);

} // namespace gpudoctor
