#include "facts/facts_json.hpp"
#include "report/gpu_coverage.hpp"
#include "report/report.hpp"

namespace gpudoctor {

Summary summarize(const std::vector<Result>& results) {
  Summary s;
  for (const auto& r : results) {
    switch (r.status) {
    case Status::pass:
      ++s.pass;
      break;
    case Status::info:
      ++s.info;
      break;
    case Status::warn:
      ++s.warn;
      break;
    case Status::error:
      ++s.error;
      break;
    case Status::skip:
      ++s.skip;
      break;
    }
  }
  return s;
}

Exit exit_status(const std::vector<Result>& results, bool strict) {
  Summary s = summarize(results);
  return (s.error > 0 || (strict && s.warn > 0)) ? Exit::findings : Exit::ok;
}

Json report_to_json(const Report& report) {
  const Facts& f = report.facts;
  Json results = Json::array();
  for (const auto& r : report.results) {
    results.push_back({{"id", r.id},
                       {"status", status_name(r.status)},
                       {"subject", r.subject},
                       {"key", r.key},
                       {"title", r.title},
                       {"message", r.message},
                       {"evidence", r.evidence},
                       {"fixes", r.fixes}});
    if (r.action) // docs/checks.md: only where there is one
      results.back()["action"] = {{"kind", action_kind_name(r.action->kind)}, {"text", r.action->text}};
  }
  Summary s = summarize(report.results);
  Json j = Json::object();
  j["format"] = "gpudoctor-report";
  j["version"] = 1;
  j["tool"] = {{"name", "gpudoctor"}, {"version", GPUDOCTOR_VERSION}};
  j["source"] = {{"kind", report.source_kind},
                 {"path", report.source_path.empty() ? Json(nullptr) : Json(report.source_path)}};
  j["host"] = {{"hostname", f.hostname},
               {"os", f.os.pretty_name ? Json(*f.os.pretty_name) : Json(nullptr)},
               {"kernel", f.os.kernel_release ? Json(*f.os.kernel_release) : Json(nullptr)}};
  if (report.selection) j["selection"] = gpu_coverage_json(report); // docs/checks.md: only with --gpus
  j["facts"] = facts_to_json(f);
  j["results"] = results;
  j["summary"] = {{"pass", s.pass}, {"info", s.info}, {"warn", s.warn}, {"error", s.error}, {"skip", s.skip}};
  return j;
}

} // namespace gpudoctor
