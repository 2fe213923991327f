// A fleet: many nodes' reports side by side (`gpudoctor fleet`, docs/fleet.md "Comparing nodes"). Which value
// of each property how many nodes have, and the odd ones out (drift); which nodes fail each check; which
// inputs name one host more than once.
#pragma once

#include "fleet/node_report.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpudoctor {

struct FleetNode {
  std::string name; // unique in the fleet: the host name, or the host name and its input when hosts repeat
  std::string host, input, origin, tool_version;
  std::string gpus; // the "GPUs" property: "8 × NVIDIA H200"
  StatusCounts counts{};
  // The node's own HTML report beside its input (a snapshot folder's report.html, NAME.html beside
  // NAME.json), as a link from the fleet page (relative to it, percent-encoded); empty: none
  // (app/fleet_cmd.cpp).
  std::string page;
};

struct FleetValue {
  std::string value;
  bool absent = false;            // these nodes do not have the property
  std::vector<std::size_t> nodes; // indexes into Fleet::nodes, ascending
};

struct FleetRow {
  int rank = 0;
  std::string group, name;
  std::vector<FleetValue> values; // most nodes first, then by value
  bool drifts() const { return values.size() > 1; }
  // A value held by more nodes than any other: the nodes of the other values are the odd ones out.
  // Without one (two nodes, two values), every value's nodes are named.
  bool has_majority() const { return values.size() < 2 || values[0].nodes.size() > values[1].nodes.size(); }
};

// How an absent property reads: a variable is unset, a version is none.
std::string absent_text(const std::string& group);

struct NodeHit {
  std::size_t node = 0;
  std::vector<std::string> subjects; // the subjects with this status ("" for the machine)
};

struct FleetCheck {
  std::string id, title;
  StatusCounts nodes{}; // nodes by their worst status for this check (error before warn ... before skip)
  int not_run = 0;      // nodes whose report has no result of it (another gpudoctor version, --only)
  std::vector<NodeHit> errors, warnings;
};

struct FleetDuplicate {
  enum class Kind { same_machine, different_machines, unknown };
  std::string host;
  std::vector<std::size_t> nodes;
  Kind kind = Kind::unknown; // by the NVIDIA GPU UUIDs: equal, different, or none to compare
  // What the GPU UUIDs say about the inputs, in words (for every output format).
  const char* why() const {
    switch (kind) {
    case Kind::same_machine:
      return "the same GPUs: one machine, reported more than once";
    case Kind::different_machines:
      return "different GPUs: different machines with one host name";
    case Kind::unknown:
      break;
    }
    return "no GPU UUID to tell them apart";
  }
};

struct FleetInputError {
  std::string input, error;
};

struct Fleet {
  std::vector<FleetNode> nodes;   // in input order
  std::vector<FleetRow> rows;     // every property, drifting or not, in table order
  std::vector<FleetCheck> checks; // every check any node ran: most error nodes first, then warnings, then id
  std::vector<FleetDuplicate> duplicates;
  std::vector<FleetInputError> unreadable;
  std::size_t drifting_rows() const;
  std::size_t nodes_with(Status s) const; // nodes with at least one result of status s
};

// Collects nodes in any order (input number `index` decides the node order) and makes the Fleet. Not
// thread-safe: callers reading in parallel add under one lock.
class FleetBuilder {
public:
  explicit FleetBuilder(std::size_t inputs);
  ~FleetBuilder();
  void add(std::size_t index, NodeReport&& node);
  void unreadable(std::size_t index, std::string input, std::string error);
  Fleet finish();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace gpudoctor
