// run_process keeps the first bytes of a long output by default, and the last ones with keep_tail (the
// kernel log: its newest lines are the ones that matter).
#include "system/process.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

CommandResult seq(bool keep_tail) {
  CommandSpec spec{"seq", {"seq", "1", "100000"}};
  spec.keep_tail = keep_tail;
  return run_process(spec, {{"PATH", "/usr/bin:/bin"}}, ProcessLimits{.max_output_bytes = 1000});
}

} // namespace

TEST_CASE("process: an output over the cap keeps its first bytes, or its last ones with keep_tail") {
  auto head = seq(false);
  REQUIRE(head.ok());
  CHECK(head.truncated);
  CHECK(head.out.size() == 1000);
  CHECK(head.out.starts_with("1\n2\n3\n"));

  auto tail = seq(true);
  REQUIRE(tail.ok());
  CHECK(tail.truncated);
  CHECK(tail.out.size() == 1000);
  CHECK(tail.out.ends_with("99999\n100000\n"));
}

TEST_CASE("process: keep_tail changes nothing for an output under the cap") {
  CommandSpec spec{"seq", {"seq", "1", "3"}};
  spec.keep_tail = true;
  auto r = run_process(spec, {{"PATH", "/usr/bin:/bin"}});
  REQUIRE(r.ok());
  CHECK(r.out == "1\n2\n3\n");
  CHECK_FALSE(r.truncated);
}
