#include "fleet/fleet_triage.hpp"

#include <algorithm>
#include <tuple>

namespace gpudoctor {

Triage triage(const Fleet& fleet, std::size_t max_nodes) {
  Triage out;
  std::map<std::size_t, TriageNode> by_node;
  for (std::size_t c = 0; c < fleet.checks.size(); ++c) {
    const FleetCheck& check = fleet.checks[c];
    if (check.errors.empty() && check.warnings.empty()) continue;
    out.checks.push_back(c); // Fleet::checks is ordered by error nodes already
    for (auto [status, hits] :
         {std::pair{Status::error, &check.errors}, std::pair{Status::warn, &check.warnings}})
      for (const auto& h : *hits) {
        TriageNode& n = by_node[h.node];
        n.node = h.node;
        // Errors come first: a node listed under both keeps its worst status, counted once.
        if (!n.checks.emplace(c, status).second) continue;
        ++(status == Status::error ? n.errors : n.warnings);
      }
  }
  for (auto& [index, n] : by_node)
    out.nodes.push_back(std::move(n));
  std::stable_sort(out.nodes.begin(), out.nodes.end(), [](const TriageNode& a, const TriageNode& b) {
    return std::tuple(b.errors, b.warnings) < std::tuple(a.errors, a.warnings);
  });
  if (out.nodes.size() > max_nodes) {
    out.more_nodes = out.nodes.size() - max_nodes;
    out.nodes.resize(max_nodes);
  }
  return out;
}

} // namespace gpudoctor
