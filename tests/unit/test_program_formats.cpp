// The formats for programs (report/program_formats.hpp) on hand-made reports: the bounds that the fixture
// machines of tests/e2e/program_formats.sh never reach (long labels, many subjects, many problems).
#include "report/program_formats.hpp"
#include "report/text_bounds.hpp"

#include <regex>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;

namespace {

Result result(std::string id, Status status, std::string subject = {}, std::string title = "Title") {
  return {std::move(id), status, std::move(subject), std::move(title), "message", {}, {}};
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n;
  }
  return true;
}

} // namespace

TEST_CASE("bounded text: cut on a character boundary, marked, and two long values stay two") {
  std::string a = std::string(100, 'a') + "é" + std::string(100, 'x');
  std::string b = std::string(100, 'a') + "é" + std::string(100, 'y');
  for (std::size_t max : {16, 40, 101, 102, 103, 128}) {
    CAPTURE(max);
    std::string ba = bounded(a, max), bb = bounded(b, max);
    CHECK(ba.size() <= max);
    CHECK(valid_utf8(ba));
    CHECK(ba != bb);
    CHECK(ba.find("…#") != std::string::npos);
  }
  CHECK(bounded("short", 16) == "short");
  CHECK(utf8_prefix("aé", 2) == "a");
  CHECK(utf8_prefix("aé", 3) == "aé");
}

TEST_CASE(
    "prometheus: one series per id and subject with the worst status; subjects bounded in number and size") {
  Report report;
  report.results.push_back(result("gpu.same", Status::pass, "gpu0"));
  report.results.push_back(result("gpu.same", Status::error, "gpu0"));
  report.results.push_back(result("gpu.same", Status::warn, "gpu0"));
  for (std::size_t i = 0; i < k_subjects_per_check + 8; ++i)
    report.results.push_back(result("env.many", i == k_subjects_per_check + 3 ? Status::warn : Status::pass,
                                    fmt::format("VAR_{:03}", i)));
  report.results.push_back(result("env.long", Status::info, std::string(1000, 'v')));
  std::string out = render_prometheus(report);

  auto same = lines_starting(out, "gpudoctor_check_result{id=\"gpu.same\"");
  REQUIRE(same.size() == 1);
  CHECK(same[0] == "gpudoctor_check_result{id=\"gpu.same\",subject=\"gpu0\"} 4");

  auto many = lines_starting(out, "gpudoctor_check_result{id=\"env.many\"");
  CHECK(many.size() == k_subjects_per_check + 1);
  auto others = lines_starting(out, "gpudoctor_check_result{id=\"env.many\",subject=\"(others)\"}");
  REQUIRE(others.size() == 1);
  CHECK(others[0].ends_with(" 3")); // the warning beyond the bound still shows, in the shared series

  auto longer = lines_starting(out, "gpudoctor_check_result{id=\"env.long\"");
  REQUIRE(longer.size() == 1);
  std::smatch m;
  REQUIRE(std::regex_search(longer[0], m, std::regex("subject=\"([^\"]*)\"")));
  CHECK(m[1].length() <= static_cast<long>(k_label_bytes));

  CHECK(lines_starting(out, "gpudoctor_results{").size() == 5);
  CHECK(out.find("status=\"error\"} 1") != std::string::npos);
  CHECK(metric_value(Status::pass) < metric_value(Status::skip));
  CHECK(metric_value(Status::skip) < metric_value(Status::info));
  CHECK(metric_value(Status::info) < metric_value(Status::warn));
  CHECK(metric_value(Status::warn) < metric_value(Status::error));
}

TEST_CASE("npd: exit statuses, the ids first, counted when they do not fit, cut on a character boundary") {
  Report report;
  report.results.push_back(result("env.warned", Status::warn));
  CHECK(render_npd(report, false, 80).exit_status == 0);
  CHECK(render_npd(report, false, 80).message == "no errors; warnings: env.warned");
  CHECK(render_npd(report, true, 80).exit_status == 1);
  CHECK(render_npd(report, true, 80).message.starts_with("env.warned: Title"));

  for (int i = 0; i < 12; ++i)
    report.results.push_back(result(fmt::format("gpu.problem-{:02}", i), Status::error, "gpu0 (0000:01:00.0)",
                                    "Ünïcödé títlé with ümläüts everywhere"));
  for (std::size_t max : {40, 41, 57, 80, 81, 82, 83, 200, 1000}) {
    CAPTURE(max);
    NpdOutput npd = render_npd(report, false, max);
    CHECK(npd.exit_status == 1);
    CHECK(npd.message.size() <= max);
    CHECK(valid_utf8(npd.message));
    CHECK(npd.message.starts_with("gpu.problem-00"));
    CHECK(npd.message.find('\n') == std::string::npos);
    CHECK(npd.message.find("env.warned") == std::string::npos); // not strict: warnings are not problems
    if (max < 200) CHECK(npd.message.find("more)") != std::string::npos);
  }
  CHECK(render_npd(report, false, 1000).message.find("(+") == std::string::npos);
}

TEST_CASE("npd: what to do follows the problem where all of it fits, never cut") {
  Report report;
  report.results.push_back(result("env.nccl-invalid", Status::error, "NCCL_ALGO", "Bad NCCL value"));
  report.results.back().action = Action::command({{"export", "NCCL_ALGO=Ring"}});
  CHECK(render_npd(report, false, 80).message ==
        "env.nccl-invalid: Bad NCCL value [NCCL_ALGO] → export NCCL_ALGO=Ring");
  CHECK(render_npd(report, false, 60).message == "env.nccl-invalid: Bad NCCL value [NCCL_ALGO]");
  report.results.back().fixes = {"env-nccl-defaults"}; // a fix is named before an action
  CHECK(render_npd(report, false, 200).message ==
        "env.nccl-invalid: Bad NCCL value [NCCL_ALGO] → gpudoctor fix env-nccl-defaults");
  report.results.back().fixes.clear();
  report.results.back().action = Action::step("Reseat the card.");
  CHECK(render_npd(report, false, 200).message == "env.nccl-invalid: Bad NCCL value [NCCL_ALGO]");
}
