// JUnit XML (the schema CI servers read: testsuites > testsuite > testcase with failure, skipped,
// system-out): one test case per result, so a CI job that runs `gpudoctor check` on a runner shows each
// check. Valid against the JUnit schema Jenkins' xunit plugin ships (junit-10.xsd: testsuites takes name,
// time, tests, failures and errors only; docs/fleet.md), and no two test cases share a classname and name
// (Jenkins and GitLab would merge them): a result's key joins its subject in the name.
#include "report/program_formats.hpp"
#include "util/escape.hpp"
#include "util/utc_time.hpp"

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using escape::xml;

// An attribute a viewer shows on one line (names, titles, the host): line feeds escaped first.
std::string attr(std::string_view s) {
  return xml(escape::one_line(s));
}

// What the result says, for a failure's body or system-out: message, evidence, fixes, action.
std::string details(const Result& r) {
  std::string out = r.message;
  for (const auto& e : r.evidence)
    out += "\n" + e;
  for (const auto& f : r.fixes)
    out += "\ngpudoctor fix " + f;
  if (r.action) out += (r.action->kind == Action::Kind::command ? "\nrun: " : "\nto do: ") + r.action->text;
  return out;
}

std::string testcase(const Result& r, const Catalogue& cat, bool strict) {
  const CatalogueEntry* e = cat.find(r.id);
  std::string name = r.id;
  if (!r.subject.empty() || !r.key.empty())
    name += fmt::format(" [{}{}{}]", r.subject, r.subject.empty() || r.key.empty() ? "" : " · ", r.key);
  std::string out = fmt::format("    <testcase classname=\"gpudoctor.{}\" name=\"{}\" time=\"0\">",
                                attr(e ? e->area : std::string("tools")), attr(name));
  bool failed = r.status == Status::error || (strict && r.status == Status::warn);
  if (failed)
    out += fmt::format("\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    ",
                       status_name(r.status), attr(r.title), xml(details(r)));
  else if (r.status == Status::skip)
    out += fmt::format("\n      <skipped message=\"{}\"/>\n    ", attr(r.message));
  else
    out +=
        fmt::format("\n      <system-out>{}: {}</system-out>\n    ", status_name(r.status), xml(details(r)));
  return out + "</testcase>\n";
}

} // namespace

std::string render_junit(const Report& report, const Catalogue& cat, bool strict) {
  Summary s = summarize(report.results);
  int failures = s.error + (strict ? s.warn : 0);
  int tests = static_cast<int>(report.results.size());
  double seconds = std::chrono::duration<double>(report.duration).count();
  // JUnit's timestamp has no zone: UTC, without the Z.
  std::string started = utc::format(std::chrono::system_clock::to_time_t(report.finished - report.duration),
                                    "%Y-%m-%dT%H:%M:%S");
  const Facts& f = report.facts;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"gpudoctor\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n", tests,
      failures, seconds);
  out += fmt::format("  <testsuite name=\"gpudoctor check\" hostname=\"{}\" timestamp=\"{}\" "
                     "tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
                     attr(f.hostname), started, tests, failures, s.skip, seconds);
  out += "    <properties>\n";
  auto property = [&](const char* name, const std::string& value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, attr(value));
  };
  property("gpudoctor.version", GPUDOCTOR_VERSION);
  property("source", report.source_kind == "live" ? "live" : "snapshot " + report.source_path);
  if (f.os.pretty_name) property("os", *f.os.pretty_name);
  if (f.os.kernel_release) property("kernel", *f.os.kernel_release);
  out += "    </properties>\n";
  for (const auto& r : report.results)
    out += testcase(r, cat, strict);
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

} // namespace gpudoctor
