// Untrusted JSON (snapshot files, commands.json, probe and python outputs, reports read back) is parsed with
// bounded work: linear-time objects, an exact nesting limit, a cap on values (docs/security.md, "Limits").
#include "util/json.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("parse_json keeps the document's order of keys") {
    auto j = parse_json(R"({"zeta": 1, "alpha": 2, "mid": {"b": 1, "a": 2}})");
    REQUIRE(j);
    std::string keys;
    for (const auto& [k, v] : j->items())
      keys += k + ",";
    CHECK(keys == "zeta,alpha,mid,");
    CHECK(j->dump() == R"({"zeta":1,"alpha":2,"mid":{"b":1,"a":2}})");
  }

  TEST_CASE("parse_json: a repeated key keeps its first place and its last value, as nlohmann does") {
    auto j = parse_json(R"({"a": 1, "b": 2, "a": 3, "c": {"x": 1, "x": [2]}})");
    REQUIRE(j);
    CHECK(j->dump() == R"({"a":3,"b":2,"c":{"x":[2]}})");
  }

  TEST_CASE("parse_json bounds nesting exactly, brackets inside strings do not count") {
    CHECK(parse_json(nested_arrays(256)));
    auto deep = parse_json(nested_arrays(257));
    REQUIRE_FALSE(deep);
    CHECK(deep.error().find("nested deeper than 256") != std::string::npos);
    // A value holding brackets is not nesting (it was refused when brackets were counted in the raw text).
    CHECK(parse_json("{\"PS1\": \"" + std::string(300, '[') + "\"}"));
    // Far deeper than any stack: refused, never a crash.
    CHECK_FALSE(parse_json(nested_arrays(1000000)));
    CHECK_FALSE(parse_json(std::string(1000000, '{')));
  }

  TEST_CASE("parse_json refuses more values than its limit") {
    std::string many = "[";
    for (int i = 0; i < 1000; ++i)
      many += std::string(i ? "," : "") + "{\"k" + std::to_string(i) + "\": 0}";
    many += "]";
    CHECK(parse_json(many));
    JsonLimits small;
    small.max_values = 500;
    auto j = parse_json(many, small);
    REQUIRE_FALSE(j);
    CHECK(j.error().find("more than 500 values") != std::string::npos);
  }

  TEST_CASE("parse_json: an object with 200,000 distinct keys parses and keeps its order") {
    // Quadratic before (each insert searched the keys so far): 2e10 comparisons, minutes; ctest's time
    // limit is the safety net, the assertions are on what was parsed.
    std::string text = "{";
    for (int i = 0; i < 200000; ++i)
      text += std::string(i ? "," : "") + "\"" + std::to_string(199999 - i) + "\":" + std::to_string(i);
    text += "}";
    auto j = parse_json(text);
    REQUIRE(j);
    CHECK(j->size() == 200000);
    CHECK(j->begin().key() == "199999");
    CHECK(j->back() == 199999);
  }

  TEST_CASE("parse_json reports malformed input as an error, never an exception") {
    for (const char* bad : {"{", "[1,", "{\"a\" 1}", "nul", "\"\\ud800\"", "{\"a\":1}}", ""})
      CHECK_FALSE(parse_json(bad));
  }
}
