#include "fleet/node_report.hpp"

#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor {

std::optional<Status> status_from_name(std::string_view name) {
  for (Status s : {Status::pass, Status::info, Status::warn, Status::error, Status::skip})
    if (status_name(s) == name) return s;
  return std::nullopt;
}

StatusCounts NodeReport::counts() const {
  StatusCounts c{};
  for (const auto& r : results)
    ++c[static_cast<std::size_t>(r.status)];
  return c;
}

namespace {

std::string gpu_ids(const JsonValue& facts) {
  std::vector<std::string> ids;
  facts["drivers"]["nvidia"]["smi_gpus"].each([&](JsonValue g) {
    if (auto uuid = g["uuid"].string(); uuid && !uuid->empty()) ids.emplace_back(*uuid);
  });
  std::sort(ids.begin(), ids.end());
  return text::join(ids, ",");
}

void read_results(const JsonValue& results, const ReadOptions& opt, std::vector<NodeResult>& out) {
  results.each([&](JsonValue r) {
    auto status = status_from_name(r["status"].string().value_or(""));
    auto id = r["id"].string();
    if (!status || !id) return; // not a result of format 1: nothing to count it as
    NodeResult nr;
    nr.id = std::string(*id);
    nr.subject = r["subject"].text();
    nr.key = r["key"].text();
    nr.status = *status;
    nr.title = r["title"].text();
    if (opt.details) nr.message = r["message"].text();
    out.push_back(std::move(nr));
  });
}

// The rows the report's arrays and objects would give (node_properties.cpp, read_results), counted without
// building one: elements are only visited.
std::size_t row_count(const JsonValue& root) {
  std::size_t rows = 0;
  auto count = [&](JsonValue) { ++rows; };
  JsonValue facts = root["facts"];
  facts["gpus"].each(count);
  facts["drivers"]["nvidia"]["smi_gpus"].each(count);
  facts["toolkits"]["cuda"].each(count);
  facts["toolkits"]["rocm"].each(count);
  facts["python"]["interpreters"].each([&](JsonValue e) {
    ++rows;
    e["distributions"].each(count);
  });
  facts["environment"]["gpu_variables"].each_member([&](std::string_view, JsonValue) { ++rows; });
  root["results"].each(count);
  return rows;
}

} // namespace

std::expected<NodeReport, std::string> read_node_report(const JsonValue& root, const ReadOptions& opt) {
  if (root["format"].string() != "gpudoctor-report") return std::unexpected(k_not_a_report);
  auto version = root["version"].integer();
  if (!version) return std::unexpected("a gpudoctor report without a format version");
  if (*version != 1)
    return std::unexpected(fmt::format("report format {} (this gpudoctor reads format 1)", *version));
  if (row_count(root) > k_max_report_rows)
    return std::unexpected(
        fmt::format("the report holds more than {} results and properties: refused", k_max_report_rows));
  NodeReport node;
  node.host = root["host"]["hostname"].text();
  node.tool_version = root["tool"]["version"].text();
  node.gpu_ids = gpu_ids(root["facts"]);
  node.properties = node_properties(root, opt);
  read_results(root["results"], opt, node.results);
  return node;
}

} // namespace gpudoctor
