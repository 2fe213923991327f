// util/json_reader: the fast reader `fleet` uses reads what util/json reads, and refuses what it refuses.
#include "unit/testutil.hpp"
#include "util/json.hpp"
#include "util/json_reader.hpp"

#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
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

TEST_CASE("json_reader: numbers as JSON writes them; integers only where exact, overflow refused") {
  JsonReader reader;
  auto root = reader.parse(R"([0, -0, 12, -9223372036854775808, 9223372036854775807, 9223372036854775808,
                               1.5, -2.5e3, 1E2, 1e-400, -1e-400, 0.0000001])");
  REQUIRE(root.has_value());
  std::vector<JsonValue> v;
  root->each([&](JsonValue e) { v.push_back(e); });
  REQUIRE(v.size() == 12);
  CHECK(v[0].integer() == 0);
  CHECK(v[2].integer() == 12);
  CHECK(v[3].integer() == std::numeric_limits<long long>::min());
  CHECK(v[4].integer() == std::numeric_limits<long long>::max());
  // Past long long: a number, not an integer (as simdjson's int64 read refused it).
  CHECK(v[5].integer() == std::nullopt);
  CHECK(v[5].number() == 9223372036854775808.0);
  CHECK(v[6].integer() == std::nullopt);
  CHECK(v[6].number() == 1.5);
  CHECK(v[7].number() == -2500.0);
  CHECK(v[8].integer() == std::nullopt);
  CHECK(v[8].number() == 100.0);
  // Too small for a double reads as zero; too large is refused, as util/json refuses it.
  CHECK(v[9].number() == 0.0);
  CHECK(v[10].number() == 0.0);
  CHECK(v[11].number() == 0.0000001);
  CHECK(v[2].number() == 12.0);
  for (std::string bad : {"1e400", "-1e400", "[123456789e301]", "01", "-", "1.", ".5", "1e", "+1", "0x10",
                          "1.e3", "-01", "Infinity", "NaN"})
    CHECK_MESSAGE(!reader.parse(bad).has_value(), bad);
}

TEST_CASE("json_reader: strings: escapes, surrogate pairs, control characters, runs across 8-byte blocks") {
  JsonReader reader;
  auto root = reader.parse(R"(["a\/b\\c\"d\b\f\n\r\t", "\ud83d\ude00", "\u0000x", "\u00e9\u20ac"])");
  REQUIRE(root.has_value());
  std::vector<std::string> s;
  root->each([&](JsonValue e) { s.emplace_back(e.text()); });
  REQUIRE(s.size() == 4);
  CHECK(s[0] == "a/b\\c\"d\b\f\n\r\t");
  CHECK(s[1] == "\xf0\x9f\x98\x80");
  CHECK(s[2] == std::string("\0x", 2));
  CHECK(s[3] == "\xc3\xa9\xe2\x82\xac");
  for (std::string bad : {R"(["\ud800"])", R"(["\udc00"])", R"(["\ud800\u0041"])", R"(["\x"])", R"(["\u12"])",
                          R"(["\u12g4"])", "[\"a\tb\"]", "[\"a\nb\"]", "[\"\x01\"]", "[\"\xed\xa0\x80\"]",
                          "[\"\xf4\x90\x80\x80\"]", "[\"\xe0\x80\xaf\"]", "[\"abc"})
    CHECK_MESSAGE(!reader.parse(bad).has_value(), bad);
  // A quote, backslash or control byte at every position of a long string is seen (the 8-byte scan).
  for (std::size_t at = 0; at < 24; ++at) {
    std::string body(24, 'x');
    body[at] = '"';
    CHECK_FALSE(reader.parse("\"" + body + "\"").has_value()); // a quote inside ends it early
    body[at] = '\x1f';
    CHECK_FALSE(reader.parse("\"" + body + "\"").has_value());
    body.replace(at, 1, "\\n");
    auto ok = reader.parse("\"" + body + "\"");
    REQUIRE(ok.has_value());
    CHECK(ok->string()->size() == 24);
    CHECK(ok->string()->at(at) == '\n');
  }
}

TEST_CASE(
    "json_reader: structure: the first of repeated keys, empty containers, whitespace, one value only") {
  JsonReader reader;
  auto root = reader.parse(" \t\r\n{\"k\": 1, \"k\": 2, \"e\": {}, \"a\": [], \"n\": [[], [{}]]}\n ");
  REQUIRE(root.has_value());
  CHECK((*root)["k"].integer() == 1);
  CHECK((*root)["e"].is_object());
  CHECK((*root)["a"].is_array());
  int members = 0;
  root->each_member([&](std::string_view, JsonValue) { ++members; });
  CHECK(members == 5);
  int elements = 0;
  (*root)["n"].each([&](JsonValue) { ++elements; });
  CHECK(elements == 2);
  for (std::string bad : {"{} {}", "[1] x", "{\"a\":1,}", "[1,]", "[,1]", "{,}", "{\"a\"}", "{1:2}", "tru",
                          "nulls", "[true false]"})
    CHECK_MESSAGE(!reader.parse(bad).has_value(), bad);
  // A value read before is not a value of the next document: the reader's tables are reused.
  auto first = reader.parse(R"({"x": "one"})");
  REQUIRE(first.has_value());
  auto second = reader.parse(R"({"x": "two"})");
  REQUIRE(second.has_value());
  CHECK((*second)["x"].string() == "two");
}

namespace {

// Whether `value` holds what nlohmann read as `expected` (util/json, the reader of everything else).
bool same_as(JsonValue value, const Json& expected) {
  using K = JsonValue::Kind;
  switch (expected.type()) {
  case Json::value_t::null:
    return value.kind() == K::null;
  case Json::value_t::boolean:
    return value.boolean() == expected.get<bool>();
  case Json::value_t::string:
    return value.string() == expected.get_ref<const std::string&>();
  case Json::value_t::number_integer:
    return value.integer() == expected.get<long long>();
  case Json::value_t::number_unsigned:
    return expected.get<unsigned long long>() <= std::numeric_limits<long long>::max()
               ? value.integer() == static_cast<long long>(expected.get<unsigned long long>())
               : value.number() == static_cast<double>(expected.get<unsigned long long>());
  case Json::value_t::number_float:
    return value.number() == expected.get<double>();
  case Json::value_t::array: {
    std::size_t i = 0;
    bool all = value.is_array();
    value.each([&](JsonValue e) { all = all && i < expected.size() && same_as(e, expected[i++]); });
    return all && i == expected.size();
  }
  case Json::value_t::object: {
    std::set<std::string, std::less<>> keys;
    bool all = value.is_object(), repeated = false;
    value.each_member([&](std::string_view k, JsonValue) { repeated = !keys.emplace(k).second || repeated; });
    if (!all || repeated) return all; // nlohmann keeps the last of a repeated key, this reader the first
    if (keys.size() != expected.size()) return false;
    for (const auto& [k, v] : expected.items())
      all = all && same_as(value[k], v);
    return all;
  }
  default:
    return false;
  }
}

} // namespace

TEST_CASE("json_reader: agrees with util/json on mutations of real reports (accepts, refuses, values)") {
  // Pieces of a real report and hand-made edge cases, mutated by a fixed seed: each mutant must be accepted
  // by both readers with the same values, or refused by both.
  std::vector<std::string> bases = {
      test::slurp(test::machine_dir("amd-mi210-healthy") / "report.json"),
      R"({"a": [1, -2.5e-3, "\u00e9\ud83d\ude00\n", true, false, null, {"b": {}}], "c": 18446744073709551615})",
  };
  const std::vector<std::string> tokens = {"\"",   "\\", "\\u",  "\\ud800", "\\udc00",
                                           "{",    "}",  "[",    "]",       ",",
                                           ":",    "-",  "0",    "1e400",   "1e-400",
                                           ".",    "e",  "\xc3", "\xff",    "\xed\xa0\x80",
                                           "\x01", " ",  "true", "nul",     "99999999999999999999"};
  std::mt19937 random(35);
  JsonReader reader;
  int accepted = 0, refused = 0;
  for (const std::string& base : bases) {
    for (int round = 0; round < 3000; ++round) {
      std::string doc = base;
      int edits = 1 + static_cast<int>(random() % 3);
      for (int e = 0; e < edits && !doc.empty(); ++e) {
        std::size_t at = random() % doc.size();
        switch (random() % 4) {
        case 0:
          doc.insert(at, tokens[random() % tokens.size()]);
          break;
        case 1:
          doc.erase(at, 1 + random() % 4);
          break;
        case 2:
          doc[at] = static_cast<char>(random() % 256);
          break;
        default:
          doc.resize(at);
        }
      }
      auto ours = reader.parse(doc);
      auto theirs = parse_json(doc);
      REQUIRE_MESSAGE(ours.has_value() == theirs.has_value(), doc, " ours: ", (ours ? "" : ours.error()),
                      " util/json: ", (theirs ? "" : theirs.error()));
      if (ours) {
        REQUIRE_MESSAGE(same_as(*ours, *theirs), doc);
        ++accepted;
      } else {
        ++refused;
      }
    }
  }
  // The mutations reach both sides of the grammar.
  CHECK(accepted > 300);
  CHECK(refused > 2000);
}
