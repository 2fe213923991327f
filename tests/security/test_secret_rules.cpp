// The secret rules are data (checks/knowledge/secrets.yaml, issue 24 item 1): every row is cited, every row's
// own example is caught (a name by its rule, a value of each shape under a name that says nothing), places
// never are, and the loader refuses a row the matcher would misread.
#include "bundle/redact_text.hpp"
#include "bundle/secret_names.hpp"
#include "bundle/secret_shapes.hpp"
#include "knowledge/knowledge.hpp"
#include "unit/testutil.hpp"
#include "util/text.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// A value of the shape: its prefix, then `min` + 8 characters of its alphabet that mix cases and digits
// (built here: no real-looking token sits in the source).
std::string value_of(const SecretShapeRow& shape) {
  std::string body = shape.alphabet == "url_path" ? "T0A1B2C3D/B4E5F6G7H/" : "";
  const char* mix = "aB3dE5gH7jK9mN2pQ4sT6vW8yZ";
  for (std::size_t i = 0; body.size() < shape.min + 8; ++i)
    body += mix[(i * 7) % 26];
  return shape.prefix + body;
}

std::string load_error(const std::string& rows) {
  test::TempDir dir;
  test::write_text(dir / "secrets.yaml", "sources:\n  S: \"a source\"\n" + rows);
  auto k = load_knowledge(dir.path().string());
  return k ? "(loaded)" : k.error();
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("secret rules: every name rule catches its example, strong ones inside judged families too") {
    auto kb = load_knowledge();
    REQUIRE(kb);
    const auto& rules = kb->secrets;
    REQUIRE(rules.names.size() >= 20);
    REQUIRE(rules.places.size() >= 5);
    REQUIRE(rules.shapes.size() >= 30);
    SecretNames names(*kb);
    for (const auto& row : rules.names) {
      CAPTURE(row.example);
      CHECK(is_secret_name(row.example));
      CHECK(names.redact(row.example));
      CHECK(says_secret(row.example) == row.strong);
      CHECK_FALSE(row.source.empty());
    }
    for (const auto& row : rules.places) {
      CAPTURE(row.example);
      CHECK_FALSE(is_secret_name(row.example));
    }
    // The names that said nothing before the rules were data (issue 24): a 1Password and a Bitwarden session.
    for (const char* name : {"OP_SESSION_my_team", "OP_SESSION_ABCDEF123", "BW_SESSION", "op-session-x"})
      CHECK_MESSAGE(is_secret_name(name), name);
    // Shell and desktop session state stays: these do not end in _SESSION.
    for (const char* name :
         {"XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS", "XDG_SESSION_ID", "GIT_AUTHOR_NAME"})
      CHECK_MESSAGE(!is_secret_name(name), name);
  }

  TEST_CASE("secret rules: a value of every shape is found under a name that says nothing") {
    auto kb = load_knowledge();
    REQUIRE(kb);
    const auto& rules = kb->secrets;
    TextRedactor redactor(SecretNames{*kb});
    for (const auto& shape : rules.shapes) {
      std::string secret = value_of(shape);
      CAPTURE(secret);
      auto found = find_secret_shapes("NOTIFY_URL=" + secret + "\n", rules.shapes);
      REQUIRE(found.size() == 1);
      CHECK(found[0].kind == shape.kind);
      CHECK(found[0].begin == 11);
      CHECK(found[0].end == 11 + secret.size());
      std::string scrubbed = redactor.shapes("export NOTIFY_URL=\"" + secret + "\"");
      CHECK(scrubbed.find(secret) == std::string::npos);
      CHECK(text::contains(scrubbed, "<redacted:" + shape.kind + "-"));
      // Too short a run is no token, and is kept.
      std::string short_one = shape.prefix + std::string(shape.min - 1, 'a');
      CHECK(find_secret_shapes(short_one, rules.shapes).empty());
    }
  }

  TEST_CASE("secret rules: the loader refuses rows the matcher would misread") {
    struct Case {
      const char *rows, *says;
    };
    for (auto c : {
             Case{"secret_names:\n  - {match: contains, text: Token, example: A_TOKEN, source: S}\n",
                  "lower case"},
             Case{"secret_names:\n  - {match: regex, text: token, example: A_TOKEN, source: S}\n",
                  "must be one of"},
             Case{"secret_names:\n  - {match: contains, text: token, source: S}\n", "'example'"},
             Case{"secret_names:\n  - {match: contains, text: token, example: A_TOKEN}\n", "'source'"},
             Case{"place_names:\n  - {match: suffix, text: _dir, strong: true, example: A_DIR, source: S}\n",
                  "only match"},
             Case{"secret_shapes:\n  - {prefix: ab_, kind: x, alphabet: hex, min: 10, source: S}\n",
                  "must be one of"},
             Case{"secret_shapes:\n  - {prefix: ab_, kind: x, alphabet: alnum, min: 0, source: S}\n",
                  "'min'"},
             Case{"secret_shapes:\n  - {prefix: ab_, kind: x, alphabet: alnum, min: 5, source: S}\n"
                  "  - {prefix: ab_cd_, kind: y, alphabet: alnum, min: 5, source: S}\n",
                  "must come before"},
         }) {
      CAPTURE(c.rows);
      std::string err = load_error(c.rows);
      CHECK_MESSAGE(text::contains(err, c.says), err);
      CHECK(text::contains(err, "secrets.yaml:"));
    }
  }
}
