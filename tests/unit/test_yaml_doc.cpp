// The YAML adapter (util/yaml_doc.hpp): an owned tree with lines, typed fields, errors as "file:line: ".
#include "util/embedded.hpp"
#include "util/text.hpp"
#include "util/yaml_doc.hpp"

#include <stdexcept>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

yaml::Node parsed(const std::string& text) {
  auto doc = yaml::parse("t.yaml", text);
  REQUIRE_MESSAGE(doc, (doc ? "" : doc.error()));
  return *doc;
}

// The message a loader body gives, through the one catch.
template <class F> std::string error_of(F&& body) {
  auto r = yaml::guarded("t.yaml", body);
  return r ? std::string("(no error)") : r.error();
}

} // namespace

TEST_CASE("yaml: the tree keeps kinds, order and lines; absent nodes point at their parent") {
  yaml::Node doc = parsed("a: 1\nb: [x, y]\nc:\n  d: ~\n");
  REQUIRE(doc.is_map());
  auto entries = doc.entries();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].first.scalar() == "a");
  CHECK(entries[2].first.scalar() == "c");
  CHECK(doc["a"].scalar() == "1");
  CHECK(doc["b"].is_list());
  CHECK(doc["b"].items()[1].scalar() == "y");
  CHECK(doc["c"]["d"].kind() == yaml::Node::Kind::null);
  CHECK_FALSE(doc["c"]["d"].present());
  CHECK(doc["c"]["d"].line() == 4);
  yaml::Node missing = doc["c"]["nope"];
  CHECK(missing.kind() == yaml::Node::Kind::absent);
  CHECK(missing.where() == "t.yaml:4");
  CHECK(doc["a"]["x"].kind() == yaml::Node::Kind::absent); // a scalar has no fields; nothing throws
  CHECK(parsed("").where() == "t.yaml:1");
}

TEST_CASE("yaml: parse refuses syntax errors, repeated keys, non-text keys and alias bombs with file:line") {
  auto bad = yaml::parse("t.yaml", "a: [1, 2\n");
  REQUIRE_FALSE(bad);
  CHECK(text::starts_with(bad.error(), "t.yaml:"));
  auto twice = yaml::parse("t.yaml", "a: 1\nb: 2\na: 3\n");
  REQUIRE_FALSE(twice);
  CHECK(twice.error() == "t.yaml:3: key 'a' given twice in one mapping (first at line 1)");
  auto key = yaml::parse("t.yaml", "? [a, b]\n: 1\n");
  REQUIRE_FALSE(key);
  CHECK(text::contains(key.error(), "t.yaml:1: a key must be a text"));
  // Nine levels of ten aliases each: 10^9 nodes once expanded; refused at the bound, not after.
  std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i)
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" +
            text::join(std::vector<std::string>(10, "*l" + std::to_string(i - 1)), ", ") + "]\n";
  auto exploded = yaml::parse("t.yaml", bomb);
  REQUIRE_FALSE(exploded);
  CHECK(text::contains(exploded.error(), "aliases"));
}

TEST_CASE("yaml: Fields read typed values and refuse what does not fit, naming the file and line") {
  yaml::Node doc = parsed("rows:\n"
                          "  - {name: a, n: 3, id: 0x10de, f: 1.5, ok: true, l: [x, y], w: one}\n"
                          "  - {name: a, bogus: 1}\n"
                          "  - 5\n");
  auto rows = doc["rows"].items();
  REQUIRE(rows.size() == 3);
  const std::initializer_list<std::string_view> allowed = {"name", "n", "id", "f", "ok", "l", "w", "z"};
  yaml::Fields r(rows[0], allowed);
  CHECK(r.text("name") == "a");
  CHECK(r.positive("n") == 3);
  CHECK(r.integer_if("n") == 3);
  CHECK_FALSE(r.integer_if("z"));
  CHECK(r.hex("id", 0xffff) == 0x10de);
  CHECK(r.number("f") == doctest::Approx(1.5));
  CHECK(r.flag("ok"));
  CHECK_FALSE(r.flag("z"));
  CHECK(r.list("l") == std::vector<std::string>{"x", "y"});
  CHECK(r.list_if("z").empty());
  CHECK(r.words("w") == std::vector<std::string>{"one"});
  CHECK(r.text_or("z", "dflt") == "dflt");

  CHECK(error_of([&] { yaml::Fields(rows[1], allowed); }) == "t.yaml:3: unknown field 'bogus'");
  CHECK(error_of([&] { yaml::Fields(rows[2], allowed); }) ==
        "t.yaml:4: a row must be a mapping of field: value");
  CHECK(error_of([&] { r.text("z"); }) == "t.yaml:2: missing required field 'z'");
  CHECK(error_of([&] { r.positive("name"); }) == "t.yaml:2: field 'name' must be a positive decimal integer");
  CHECK(error_of([&] { r.hex("n", 0xffff); }) == "t.yaml:2: field 'n' must be a 0x hex id, got '3'");
  CHECK(error_of([&] { r.flag("name"); }) == "t.yaml:2: field 'name' must be true or false");
  CHECK(error_of([&] { r.list("name"); }) == "t.yaml:2: field 'name' must be a non-empty list");
  CHECK(error_of([&] { r.text("l"); }) == "t.yaml:2: field 'l' must be a non-empty text");
}

TEST_CASE("yaml: guarded turns any exception of a loader into its error, and passes values through") {
  CHECK(yaml::guarded("t.yaml", [] { return 7; }).value() == 7);
  CHECK(error_of([] { throw std::runtime_error("boom"); }) == "t.yaml: boom");
}

namespace {

// A tree as text, kinds, lines and scalars: two trees are the same when these are.
std::string shape(const yaml::Node& n) {
  std::string out = std::to_string(static_cast<int>(n.kind())) + "@" + std::to_string(n.line());
  if (n.is_scalar()) out += "'" + n.scalar() + "'";
  if (n.is_list())
    for (const auto& item : n.items())
      out += "[" + shape(item) + "]";
  if (n.is_map())
    for (const auto& [k, v] : n.entries())
      out += "{" + shape(k) + ":" + shape(v) + "}";
  return out;
}

} // namespace

TEST_CASE("yaml pack: a packed tree comes back as parse gives it, lines and file name included") {
  std::string text = "# a comment\nrows:\n  - id: a\n    list: [1, two, \"th ree\"]\n  - id: b\n"
                     "    empty: ~\n    text: |\n      two\n      lines\nunicode: \"\xc3\xa9\"\n";
  auto parsed = yaml::parse("t.yaml", text);
  REQUIRE(parsed);
  auto packed = yaml::pack("t.yaml", text);
  REQUIRE(packed);
  auto back = yaml::unpack("t.yaml", *packed);
  REQUIRE(back);
  CHECK(shape(*back) == shape(*parsed));
  CHECK((*back)["rows"].items()[1]["text"].where() == "t.yaml:7");
  // What parse refuses, pack refuses with the same words.
  auto twice = yaml::pack("d.yaml", "a: 1\na: 2\n");
  REQUIRE_FALSE(twice);
  CHECK(twice.error() == yaml::parse("d.yaml", "a: 1\na: 2\n").error());
}

TEST_CASE("yaml pack: every built-in data file's packed tree is the tree of its text") {
  std::size_t compared = 0;
  for (const auto& [name, packed] : embedded_packed_trees()) {
    auto text = embedded_data_files().find(name);
    REQUIRE(text != embedded_data_files().end());
    auto parsed = yaml::parse(std::string(name), std::string(text->second));
    auto back = yaml::unpack(std::string(name), packed);
    REQUIRE_MESSAGE(parsed, name);
    REQUIRE_MESSAGE(back, name);
    CHECK_MESSAGE(shape(*back) == shape(*parsed), name);
    ++compared;
  }
  std::size_t yaml_files = 0;
  for (const auto& [name, text] : embedded_data_files())
    if (name.ends_with(".yaml")) ++yaml_files;
  CHECK(compared == yaml_files);
  CHECK(compared > 10);
}

TEST_CASE("yaml pack: a damaged packed tree is refused, never read past its end") {
  auto packed = yaml::pack("t.yaml", "a: [1, 2, {b: c}]\nd: e\n");
  REQUIRE(packed);
  for (std::size_t cut = 0; cut < packed->size(); ++cut) {
    auto back = yaml::unpack("t.yaml", std::string_view(*packed).substr(0, cut));
    REQUIRE_FALSE(back);
    CHECK(back.error().starts_with("t.yaml: the packed data file"));
  }
  CHECK_FALSE(yaml::unpack("t.yaml", *packed + "x")); // bytes past the tree
  std::string bad_kind = *packed;
  bad_kind[0] = 9;
  CHECK_FALSE(yaml::unpack("t.yaml", bad_kind));
  // A map that claims more entries than bytes, and a number that never ends.
  CHECK_FALSE(yaml::unpack("t.yaml", std::string("\x04\x01\xff\xff\xff\xff\x0f", 7)));
  CHECK_FALSE(yaml::unpack("t.yaml", std::string(12, '\xff')));
  // Nested past the bound: a list in a list ... 2,000 deep.
  std::string deep;
  for (int i = 0; i < 2000; ++i)
    deep += std::string("\x03\x01\x01", 3);
  deep += std::string("\x01\x01", 2);
  auto too_deep = yaml::unpack("t.yaml", deep);
  REQUIRE_FALSE(too_deep);
  CHECK(too_deep.error().find("bounds") != std::string::npos);
}
