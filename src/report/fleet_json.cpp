// The fleet for programs: format "gpudoctor-fleet", version 1 (docs/fleet.md, "Comparing nodes"). Nodes are
// named by their unique names; a value held by a majority lists its count without the names (its nodes
// are the others), so that a fleet of 10,000 agreeing nodes stays small.
#include "report/fleet_render.hpp"

namespace gpudoctor {

namespace {

Json counts_json(const StatusCounts& c) {
  Json j = Json::object();
  for (Status s : {Status::pass, Status::info, Status::warn, Status::error, Status::skip})
    j[status_name(s)] = c[static_cast<int>(s)];
  return j;
}

Json names_json(const Fleet& f, const std::vector<std::size_t>& nodes) {
  Json out = Json::array();
  for (auto n : nodes)
    out.push_back(f.nodes[n].name);
  return out;
}

Json row_json(const Fleet& f, const FleetRow& row) {
  Json values = Json::array();
  for (std::size_t i = 0; i < row.values.size(); ++i) {
    const FleetValue& v = row.values[i];
    Json jv = {{"value", v.absent ? Json(nullptr) : Json(v.value)}, {"count", v.nodes.size()}};
    if (v.absent) jv["absent"] = true;
    if (i == 0 && row.drifts() && row.has_majority())
      jv["majority"] = true;
    else if (row.drifts())
      jv["nodes"] = names_json(f, v.nodes);
    values.push_back(std::move(jv));
  }
  return {{"group", row.group}, {"name", row.name}, {"drifts", row.drifts()}, {"values", values}};
}

Json hits_json(const Fleet& f, const std::vector<NodeHit>& hits) {
  Json out = Json::array();
  for (const auto& h : hits)
    out.push_back({{"node", f.nodes[h.node].name}, {"subjects", h.subjects}});
  return out;
}

Json check_json(const Fleet& f, const FleetCheck& c) {
  Json nodes = counts_json(c.nodes);
  nodes["not_run"] = c.not_run;
  return {{"id", c.id},
          {"title", c.title},
          {"nodes", nodes},
          {"errors", hits_json(f, c.errors)},
          {"warnings", hits_json(f, c.warnings)}};
}

std::string kind_name(FleetDuplicate::Kind k) {
  switch (k) {
  case FleetDuplicate::Kind::same_machine:
    return "same machine";
  case FleetDuplicate::Kind::different_machines:
    return "different machines";
  case FleetDuplicate::Kind::unknown:
    break;
  }
  return "unknown";
}

} // namespace

Json fleet_to_json(const Fleet& f) {
  Json nodes = Json::array(), rows = Json::array(), checks = Json::array(), dups = Json::array(),
       bad = Json::array();
  for (const auto& n : f.nodes)
    nodes.push_back({{"name", n.name},
                     {"host", n.host},
                     {"input", n.input},
                     {"origin", n.origin},
                     {"tool_version", n.tool_version},
                     {"gpus", n.gpus},
                     {"summary", counts_json(n.counts)}});
  for (const auto& r : f.rows)
    rows.push_back(row_json(f, r));
  for (const auto& c : f.checks)
    checks.push_back(check_json(f, c));
  for (const auto& d : f.duplicates)
    dups.push_back({{"host", d.host}, {"kind", kind_name(d.kind)}, {"nodes", names_json(f, d.nodes)}});
  for (const auto& u : f.unreadable)
    bad.push_back({{"input", u.input}, {"error", u.error}});
  Json j = Json::object();
  j["format"] = "gpudoctor-fleet";
  j["version"] = 1;
  j["tool"] = {{"name", "gpudoctor"}, {"version", GPUDOCTOR_VERSION}};
  j["summary"] = {{"nodes", f.nodes.size()},
                  {"nodes_with_errors", f.nodes_with(Status::error)},
                  {"nodes_with_warnings", f.nodes_with(Status::warn)},
                  {"properties", f.rows.size()},
                  {"drifting", f.drifting_rows()},
                  {"unreadable", f.unreadable.size()}};
  j["nodes"] = nodes;
  j["properties"] = rows;
  j["checks"] = checks;
  j["duplicates"] = dups;
  j["unreadable"] = bad;
  return j;
}

} // namespace gpudoctor
