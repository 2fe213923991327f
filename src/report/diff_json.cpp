// The diff for programs: format "gpudoctor-diff", version 1 (docs/fleet.md, "Comparing nodes"). A side that
// does not have a property or a result says null.
#include "report/diff_render.hpp"

namespace gpudoctor {

namespace {

Json opt_json(const std::optional<std::string>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json side_json(const DiffSide& s) {
  Json summary = Json::object();
  for (Status st : {Status::pass, Status::info, Status::warn, Status::error, Status::skip})
    summary[status_name(st)] = s.counts[static_cast<int>(st)];
  return {{"input", s.input},
          {"origin", s.origin},
          {"host", s.host},
          {"tool_version", s.tool_version},
          {"summary", summary}};
}

} // namespace

Json diff_to_json(const ReportDiff& d) {
  Json facts = Json::array(), results = Json::array();
  for (const auto& c : d.facts)
    facts.push_back(
        {{"group", c.group}, {"name", c.name}, {"before", opt_json(c.before)}, {"after", opt_json(c.after)}});
  for (const auto& r : d.results)
    results.push_back({{"id", r.id},
                       {"subject", r.subject},
                       {"key", r.key},
                       {"title", r.title},
                       {"before", r.before ? Json(status_name(*r.before)) : Json(nullptr)},
                       {"after", r.after ? Json(status_name(*r.after)) : Json(nullptr)},
                       {"message", r.message}});
  Json j = Json::object();
  j["format"] = "gpudoctor-diff";
  j["version"] = 1;
  j["tool"] = {{"name", "gpudoctor"}, {"version", GPUDOCTOR_VERSION}};
  j["before"] = side_json(d.before);
  j["after"] = side_json(d.after);
  j["changed"] = !d.empty();
  j["notes"] = d.notes;
  j["facts"] = facts;
  j["results"] = results;
  return j;
}

} // namespace gpudoctor
