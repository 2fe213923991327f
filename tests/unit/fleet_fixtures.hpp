// Shared by the fleet and diff tests: the report of a fixture machine as `check --format json` writes it,
// and nodes built by hand.
#pragma once

#include "fleet/node_report.hpp"
#include "unit/testutil.hpp"

#include <string>

#include <doctest/doctest.h>

namespace gpudoctor::test {

// The JSON report of tests/machines/<machine>/snapshot, judged now.
inline std::string fixture_report(const std::string& machine) {
  return dump_json(report_to_json(judged_machine(machine)));
}

inline NodeReport read_report(const std::string& json, bool details = false) {
  JsonReader reader;
  auto root = reader.parse(json);
  REQUIRE_MESSAGE(root.has_value(), (root ? std::string() : root.error()));
  auto node = read_node_report(*root, ReadOptions{details});
  REQUIRE_MESSAGE(node.has_value(), (node ? std::string() : node.error()));
  return *node;
}

inline const NodeProperty* find_property(const NodeReport& n, const std::string& group,
                                         const std::string& name) {
  for (const auto& p : n.properties)
    if (p.group == group && p.name == name) return &p;
  return nullptr;
}

inline std::string property(const NodeReport& n, const std::string& group, const std::string& name) {
  const NodeProperty* p = find_property(n, group, name);
  return p ? p->value : "<absent>";
}

// A node with these properties ({group, name, value}; rank by group order) and results ({id, subject,
// status}).
struct HandResult {
  std::string id, subject;
  Status status;
};
inline NodeReport hand_node(std::string host, std::string input,
                            std::vector<std::tuple<std::string, std::string, std::string>> props = {},
                            std::vector<HandResult> results = {}, std::string gpu_ids = "") {
  NodeReport n;
  n.host = std::move(host);
  n.input = std::move(input);
  n.origin = "report";
  n.gpu_ids = std::move(gpu_ids);
  for (auto& [g, name, v] : props)
    n.properties.push_back({g == "Environment" ? 801 : 301, g, name, v});
  for (auto& r : results)
    n.results.push_back({r.id, r.subject, r.status, r.id + " title", r.id + " message"});
  return n;
}

} // namespace gpudoctor::test
