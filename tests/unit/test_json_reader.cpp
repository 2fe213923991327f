// util/json_reader: the fast reader `fleet` uses reads what util/json reads, and refuses what it refuses.
#include "unit/testutil.hpp"
#include "util/json.hpp"
#include "util/json_reader.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

TEST_CASE("json_reader: values, lookups that chain, iteration in document order") {
  JsonReader reader;
  auto root = reader.parse(R"({"a": {"b": [1, "two", true, null, 2.5]}, "s": "x\u00e9\n\"", "n": -3})");
  REQUIRE(root.has_value());
  CHECK(root->is_object());
  CHECK((*root)["s"].string() == "x\xc3\xa9\n\"");
  CHECK((*root)["n"].integer() == -3);
  CHECK((*root)["missing"]["deeper"].missing());
  CHECK((*root)["s"]["not-an-object"].missing());
  CHECK((*root)["n"].string() == std::nullopt);
  CHECK((*root)["s"].text("fallback") == "x\xc3\xa9\n\"");
  CHECK((*root)["n"].text("fallback") == "fallback");
  std::vector<JsonValue::Kind> kinds;
  (*root)["a"]["b"].each([&](JsonValue v) { kinds.push_back(v.kind()); });
  using K = JsonValue::Kind;
  CHECK(kinds == std::vector<K>{K::number, K::string, K::boolean, K::null, K::number});
  std::string keys;
  root->each_member([&](std::string_view k, JsonValue) { keys += std::string(k) + ","; });
  CHECK(keys == "a,s,n,");
}

TEST_CASE("json_reader: garbage, truncations, bad UTF-8 and deep nesting are errors, never crashes") {
  JsonReader reader;
  for (std::string bad :
       {"", "{", "{\"a\":}", "[1,2", "nul", "{\"a\" 1}", "\"\xff\"", "{\"a\":\"\xc0\x80\"}"})
    CHECK_MESSAGE(!reader.parse(bad).has_value(), bad);
  // util/json refuses nesting deeper than 256 levels; so does this reader.
  std::string deep = std::string(300, '[') + std::string(300, ']');
  auto refused = reader.parse(deep);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().find("256") != std::string::npos);
  std::string ok = std::string(200, '[') + std::string(200, ']');
  CHECK(reader.parse(ok).has_value());
  // Every prefix of a document either parses or is refused.
  std::string doc = R"({"results": [{"id": "x", "status": "pass", "evidence": ["a", "b"]}], "v": 1})";
  for (std::size_t n = 0; n < doc.size(); ++n)
    CHECK_FALSE(reader.parse(doc.substr(0, n)).has_value());
  CHECK(reader.parse(doc).has_value());
}

TEST_CASE("json_reader: files are read whole, never through a link, and over a size limit refused") {
  test::TempDir tmp("gd-json-reader");
  const fs::path& dir = tmp.path();
  std::ofstream(dir / "a.json") << R"({"k": "first"})";
  std::ofstream(dir / "big.json") << "[" << std::string(2000, ' ') << "]";
  fs::create_symlink(dir / "a.json", dir / "link.json");
  JsonReader reader(1024);
  auto a = reader.parse_file(dir / "a.json");
  REQUIRE(a.has_value());
  CHECK((*a)["k"].string() == "first");
  CHECK_FALSE(reader.parse_file(dir / "link.json").has_value());
  CHECK_FALSE(reader.parse_file(dir / "big.json").has_value());
  CHECK_FALSE(reader.parse_file(dir).has_value());
  CHECK_FALSE(reader.parse_file(dir / "absent.json").has_value());
  // The reader's buffer is reused: a shorter file after a longer one reads only its own bytes.
  std::ofstream(dir / "b.json") << R"({"k": "second, longer than the first"})";
  std::ofstream(dir / "c.json") << R"([1])";
  CHECK(reader.parse_file(dir / "b.json").has_value());
  auto c = reader.parse_file(dir / "c.json");
  REQUIRE(c.has_value());
  CHECK(c->is_array());
}

TEST_CASE("json_reader: reads what util/json writes, hidden characters included") {
  Json j = {{"host", "a\x1b[2J\u202e"}, {"list", {1, 2, 3}}};
  JsonReader reader;
  auto root = reader.parse(dump_json(j));
  REQUIRE(root.has_value());
  CHECK((*root)["host"].string() == "a\x1b[2J\u202e");
}
