// util/linear_regex, the matcher that replaced std::regex where a pattern meets a snapshot's text: the same
// answers as std::regex on short inputs, and no crash, in bounded time, on the long ones that overflow
// std::regex's recursion (a 1 MB name, 100 KB of nesting characters), also where the planner uses it.
#include "unit/fix_fixtures.hpp"
#include "util/linear_regex.hpp"

#include <algorithm>
#include <regex>
#include <string>

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_SUITE("security") {
  TEST_CASE("linear_regex: the same answers as std::regex_match on short inputs") {
    const char* patterns[] = {
        "ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL",
        "HSA_OVERRIDE_GFX_VERSION(_[0-9]+)?",
        "NCCL_P2P_DISABLE|NCCL_P2P_LEVEL",
        "a(b|c)*d+e?",
        "[^a-c]x.y",
        "(a|)b",
        "x\\.y",
        "[]a]+",
        "[a-]z",
        "((a*)*)*b",
        ""};
    const char* subjects[] = {"",
                              "ROCM_PATH",
                              "ROCM_path",
                              "HSA_OVERRIDE_GFX_VERSION",
                              "HSA_OVERRIDE_GFX_VERSION_2",
                              "HSA_OVERRIDE_GFX_VERSION_",
                              "NCCL_P2P_LEVEL",
                              "NCCL_P2P_LEVELS",
                              "GPU_DEVICE_ORDINAL",
                              "abcbcdde",
                              "ad",
                              "abe",
                              "dxzy",
                              "axzy",
                              "b",
                              "ab",
                              "x.y",
                              "xzy",
                              "]a]",
                              "-z",
                              "aaab",
                              "aaa"};
    for (const char* p : patterns) {
      auto mine = LinearRegex::compile(p);
      REQUIRE_MESSAGE(mine.has_value(), p);
      std::regex theirs(std::string("^(") + p + ")$", std::regex::extended);
      for (const char* s : subjects)
        CHECK_MESSAGE(mine->full_match(s) == std::regex_match(s, theirs), "pattern ", p, " on '", s, "'");
    }
  }

  TEST_CASE("linear_regex: unsupported syntax is refused, not misread") {
    for (const char* p : {"a{2}", "^a", "a$", "(a", "a)", "[a", "[[:alpha:]]", "*a", "a\\", "[z-a]"})
      CHECK_MESSAGE(!LinearRegex::compile(p).has_value(), p);
    CHECK_FALSE(LinearRegex::compile(std::string(LinearRegex::k_max_pattern + 1, 'a')).has_value());
    CHECK_FALSE(LinearRegex::compile(std::string(100, '(') + std::string(100, ')')).has_value());
  }

  TEST_CASE("linear_regex: 1 MB subjects do not crash (std::regex overflows its stack on them)") {
    auto vars = LinearRegex::compile("ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|(x|y)*z");
    REQUIRE(vars);
    std::string name = "HSA_" + std::string(1 << 20, 'A');
    CHECK(vars->full_match(name));
    CHECK_FALSE(vars->full_match(name + "-"));
    std::string nesting(100 * 1024, '(');
    CHECK_FALSE(vars->full_match(nesting));
    CHECK_FALSE(vars->full_match(std::string(1 << 20, 'x')));
    CHECK(vars->full_match(std::string(1 << 20, 'y') + "z"));
  }
}

TEST_SUITE("security") {
  TEST_CASE("planning: a 1 MB variable name in a system profile is matched without a crash") {
    // env-cleanup's system step runs when a system-wide profile sets one of the other stack's variables
    // (HSA_... on this NVIDIA machine); the name comes from the machine, a line long. std::regex_match
    // overflowed its stack here (plan.cpp's system_sets).
    auto machine = test::open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
    std::string long_name = "HSA_" + std::string(1 << 20, 'A');
    machine->inventory.system_assignments = {{"/etc/environment", long_name}};
    auto plan = fix::plan_fix("env-cleanup", machine->context());
    REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
    CHECK(std::any_of(plan->steps.begin(), plan->steps.end(),
                      [](const fix::PlannedStep& s) { return s.id == "env-cleanup.system-profiles"; }));
    machine->inventory.system_assignments = {{"/etc/environment", long_name + "-"}};
    plan = fix::plan_fix("env-cleanup", machine->context());
    REQUIRE(plan.has_value());
    CHECK(std::none_of(plan->steps.begin(), plan->steps.end(),
                       [](const fix::PlannedStep& s) { return s.id == "env-cleanup.system-profiles"; }));
  }
}
