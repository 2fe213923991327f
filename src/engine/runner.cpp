#include "engine/runner.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// A bug in one check must not hide the others' conclusions: its results become one skip that says so.
Results failed_inside(const std::string& why) {
  Results results;
  results.skip("", fmt::format("this check failed inside gpudoctor: {}", why));
  return results;
}

// A check's results are told apart by subject and key: a series, a JUnit test case and a diff's row each
// name one. Two that a check left alike (a defect: tests/unit/test_machines.cpp finds none in the fixtures)
// get "#2", "#3", ... after the key, in their order, rather than merging into one.
void tell_apart(std::vector<Result>& results) {
  std::map<std::pair<std::string, std::string>, int> seen;
  for (auto& r : results) {
    int n = ++seen[{r.subject, r.key}];
    if (n > 1) r.key += fmt::format("#{}", n);
  }
}

} // namespace

std::vector<Result> run_checks(const CheckContext& ctx, const Catalogue& cat, const CheckTable& table,
                               const std::vector<std::string>& only) {
  std::vector<Result> all;
  for (const auto& entry : table.checks) {
    if (!only.empty() && std::find(only.begin(), only.end(), entry.id) == only.end()) continue;
    Results results;
    const char* wsl = ctx.facts.host.wsl_evidence.empty() || !table.wsl_skip_reason
                          ? nullptr
                          : table.wsl_skip_reason(entry.id);
    std::string left_out = table.input_skip_reason ? table.input_skip_reason(entry.id, ctx.facts) : "";
    try {
      if (wsl)
        results.skip("", std::string("WSL2: ") + wsl + " (" + ctx.facts.host.wsl_evidence + ")");
      else if (!left_out.empty())
        results.skip("", left_out);
      else
        entry.run(ctx, results);
    } catch (const std::exception& e) {
      results = failed_inside(e.what());
    }
    if (results.items().empty()) results.pass("", "no problem found");
    const CatalogueEntry* info = cat.find(entry.id);
    if (std::string stray = results.offer_fixes(info ? info->fixes : std::vector<std::string>{},
                                                info ? info->action : std::nullopt);
        !stray.empty()) {
      // A check may choose among its entry's fixes, never add one: the catalogue is the one link.
      results = failed_inside(
          fmt::format("it offers the fix {}, which checks/catalogue.yaml does not list for it", stray));
    }
    tell_apart(results.items());
    for (auto& r : results.items()) {
      r.id = entry.id;
      if (r.title.empty()) r.title = info ? info->title : entry.id;
      all.push_back(std::move(r));
    }
  }
  return all;
}

} // namespace gpudoctor
