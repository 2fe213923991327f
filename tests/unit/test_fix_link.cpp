// The check→fix link is written once, in checks/catalogue.yaml's `fixes:`: a warn or error result offers its
// entry's fixes unless the check chose some of them or none, a check never offers one its entry lacks, and
// every machine fixture's findings offer only fixes with recipes (test_machines.cpp, per fixture).
#include "check_fixtures.hpp"
#include "unit/testutil.hpp"

#include <filesystem>
#include <regex>
#include <set>

using namespace gpudoctor;
using namespace gpudoctor::test;
namespace fs = std::filesystem;

namespace {

// A catalogue of one entry, demo.check, whose fixes are fix-a and fix-b.
Catalogue demo_catalogue() {
  Catalogue cat;
  CatalogueEntry e;
  e.id = "demo.check";
  e.title = "Demo";
  e.fixes = {"fix-a", "fix-b"};
  cat.checks.push_back(e);
  return cat;
}

std::vector<Result> run_demo(CheckFn fn) {
  std::vector<CheckEntry> rows = {{"demo.check", fn}};
  Facts facts;
  CheckContext ctx{facts, kb()};
  return run_checks(ctx, demo_catalogue(), CheckTable{rows});
}

} // namespace

TEST_CASE("fix link: a finding offers its catalogue entry's fixes unless the check chose some or none") {
  auto results = run_demo([](const CheckContext&, Results& out) {
    out.add(Status::error, "default", "m");
    out.add(Status::warn, "chosen", "m", {}, {"fix-b"});
    out.add(Status::error, "none", "m", {}, no_fix);
    out.add(Status::info, "info", "m");
    out.pass("pass", "m");
    out.skip("skip", "m");
  });
  REQUIRE(results.size() == 6);
  CHECK(results[0].fixes == std::vector<std::string>{"fix-a", "fix-b"});
  CHECK(results[1].fixes == std::vector<std::string>{"fix-b"});
  for (std::size_t i = 2; i < results.size(); ++i) {
    CAPTURE(results[i].subject);
    CHECK(results[i].fixes.empty()); // none chosen; info, pass and skip offer nothing by default
  }
}

TEST_CASE("fix link: a check that offers a fix its entry does not list fails as a check, not silently") {
  auto results = run_demo([](const CheckContext&, Results& out) {
    out.add(Status::error, "gpu0", "m", {}, {"fix-a", "fix-c"});
  });
  REQUIRE(results.size() == 1);
  CHECK(results[0].status == Status::skip);
  CHECK(text::contains(results[0].message, "inside gpudoctor: it offers the fix fix-c"));
  CHECK(results[0].fixes.empty());
}

TEST_CASE("fix link: checks/*.cpp names a fix id only where its entry lists several to choose from") {
  // A literal fix id in a check is a second copy of the catalogue's link, unless the check chooses.
  std::set<std::string> choosable;
  for (const auto& entry : catalogue().checks)
    if (entry.fixes.size() > 1) choosable.insert(entry.fixes.begin(), entry.fixes.end());
  std::set<std::string> fix_ids;
  for (const auto& f : catalogue().fixes)
    fix_ids.insert(f.id);
  const std::regex literal("\"([a-z0-9-]+)\"");
  int files = 0;
  for (const auto& file : fs::directory_iterator(fs::path(GPUDOCTOR_SOURCE_DIR) / "checks")) {
    if (file.path().extension() != ".cpp" || file.path().filename() == "registry.cpp") continue;
    ++files;
    std::string text = slurp(file.path());
    for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it) {
      std::string id = (*it)[1];
      if (!fix_ids.count(id)) continue;
      CAPTURE(file.path().filename().string());
      CHECK_MESSAGE(choosable.count(id), "the fix " << id
                                                    << " is written in a check although no entry chooses "
                                                       "among it and others: the catalogue offers it");
    }
  }
  CHECK(files > 40);
}
