// What one node's report says, reduced to what `fleet` and `diff` compare: versions, variables and GPUs as
// named properties, and the results. Read from a report's JSON (shared/spec/report-v1.md) with
// util/json_reader.
#pragma once

#include "engine/result.hpp"
#include "util/json_reader.hpp"

#include <array>
#include <expected>
#include <string>
#include <vector>

namespace gpudoctor {

// One comparable fact: {"Driver", "NVIDIA kernel module", "580.159.04 (open)"}. `rank` orders the rows of a
// table (its hundreds are the group: see node_properties.cpp); properties of one rank are ordered by name.
struct NodeProperty {
  int rank = 0;
  std::string group;
  std::string name;
  std::string value;
};

struct NodeResult {
  std::string id;
  std::string subject;
  Status status = Status::pass;
  std::string title;
  std::string message; // kept only with ReadOptions::details
  std::string key;     // "" in reports of gpudoctor before 2026-12 (and for most results)
};

// How many results of each status, indexed by Status.
using StatusCounts = std::array<int, 5>;

struct NodeReport {
  std::string input;        // the path it came from, as given
  std::string origin;       // "report", "bundle's report", "judged now": docs/fleet.md
  std::string host;         // host.hostname (a keyed pseudonym in an obfuscated bundle)
  std::string gpu_ids;      // the NVIDIA GPU UUIDs, sorted: tells apart machines that share a host name
  std::string tool_version; // the gpudoctor that judged it
  std::vector<NodeProperty> properties;
  std::vector<NodeResult> results;
  StatusCounts counts() const;
};

struct ReadOptions {
  // For `diff`: every Python distribution (not only the GPU stack's), each GPU by its PCI address with its
  // UUID, and the results' messages. `fleet` leaves them out: they differ on every node or cost memory.
  bool details = false;
};

// The error of read_node_report for JSON that is no gpudoctor report (fleet skips such files in folders).
inline constexpr const char* k_not_a_report = "not a gpudoctor report";
// The results and properties one report may give (docs/security.md, "Limits"): a real report gives hundreds,
// each costs memory in `fleet` and a line in `diff`; a report giving more is refused before any is built.
inline constexpr std::size_t k_max_report_rows = 100000;
// The most bytes of a report.json `fleet` and `diff` read.
inline constexpr std::size_t k_max_report_bytes = std::size_t{64} << 20;

// Reads a report; refuses JSON that is not a gpudoctor report of format 1. Missing or mistyped fields
// are read as absent: a report is untrusted input.
std::expected<NodeReport, std::string> read_node_report(const JsonValue& root, const ReadOptions& opt);

// The properties of a report's facts (node_properties.cpp).
std::vector<NodeProperty> node_properties(const JsonValue& report, const ReadOptions& opt);

// "pass" -> Status::pass; nullopt for a name report-v1 does not define.
std::optional<Status> status_from_name(std::string_view name);

} // namespace gpudoctor
