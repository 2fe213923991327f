// Every output is safe for its reader (docs/security.md, "Outputs"): the escaping function of each format
// (util/escape) fed the same hostile strings.
#include "security/inert_text.hpp"
#include "util/escape.hpp"
#include "util/json.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using security::first_offence;
using security::k_hostile;

TEST_SUITE("security") {

  TEST_CASE("escape: every format leaves no control character, bidi control or invalid UTF-8 raw") {
    for (const auto& s : k_hostile) {
      CAPTURE(s);
      CHECK(first_offence(escape::one_line(s)) == "");
      CHECK(first_offence(escape::terminal(s), "\n\t") == "");
      CHECK(first_offence(escape::html(s), "\n\t") == "");
      CHECK(first_offence(escape::xml(s)) == "");
      CHECK(first_offence(escape::prometheus_label(s)) == "");
      // Escaping again changes nothing: a value escaped once by a lower layer stays readable.
      CHECK(escape::one_line(escape::one_line(s)) == escape::one_line(s));
    }
  }

  TEST_CASE("escape: what the reader sees instead") {
    CHECK(escape::one_line("\x1b[2J") == "\\x1b[2J");
    CHECK(escape::one_line("a\r\nb\tc") == "a\\r\\nb\\tc");
    CHECK(escape::terminal("a\r\nb\tc") == "a\\r\nb\tc");
    CHECK(escape::one_line("\xc2\x9b"
                           "31m") == "\\u009b31m");
    CHECK(escape::one_line("abc\xe2\x80\xae"
                           "fed") == "abc\\u202efed");
    CHECK(escape::one_line("\xff(\xc3") == "\\xff(\\xc3");
    CHECK(escape::one_line(std::string("a\0b", 3)) == "a\\x00b");
    CHECK(escape::one_line("\x7f") == "\\x7f");
    // Text people write stays as it is: UTF-8 (the report's own marks), quotes, backslashes.
    CHECK(escape::one_line("✓ pass · Grüße \"x\" C:\\dir 日本") == "✓ pass · Grüße \"x\" C:\\dir 日本");
  }

  TEST_CASE("escape: HTML and XML references, XML's forbidden characters") {
    CHECK(escape::html("<script>alert('x')</script> & \"y\"") ==
          "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;y&quot;");
    CHECK(escape::html("a\x1b[2Jb") == "a\\x1b[2Jb");
    CHECK(escape::xml("]]><x a=\"1\">\n\t") == "]]&gt;&lt;x a=&quot;1&quot;&gt;&#10;&#9;");
    CHECK(escape::xml("\x01\x0b\xef\xbf\xbf") == "\\x01\\x0b\\uffff");
    CHECK(escape::xml("\r") == "\\r");
  }

  TEST_CASE("escape: Prometheus label values") {
    CHECK(escape::prometheus_label("a\"b\\c\nd") == "a\\\"b\\\\c\\\\nd");
    CHECK(escape::prometheus_label("gpu\x1b[2J") == "gpu\\\\x1b[2J");
    CHECK(escape::prometheus_label("plain value") == "plain value");
  }

  TEST_CASE("escape: a path as a URL path keeps no scheme, query, fragment, quote or control") {
    CHECK(escape::url_path("../reports/node-01_a~b.html") == "../reports/node-01_a~b.html");
    CHECK(escape::url_path("javascript:alert(1)") == "javascript%3Aalert%281%29");
    CHECK(escape::url_path("a b?c#d\"e'<f>&.html") == "a%20b%3Fc%23d%22e%27%3Cf%3E%26.html");
    CHECK(escape::url_path("n\xc3\xa9.html") == "n%C3%A9.html");
    for (const auto& s : k_hostile) {
      std::string out = escape::url_path(s);
      CHECK(out.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/%") ==
            std::string::npos);
    }
  }

  TEST_CASE("escape: JSON output holds no raw control or bidi character, and the same values") {
    Json doc = Json::object();
    for (std::size_t i = 0; i < k_hostile.size(); ++i)
      doc["k" + std::to_string(i) + k_hostile[i]] = Json::array({k_hostile[i], k_hostile[i] + "x"});
    for (int indent : {-1, 2}) {
      std::string text = dump_json(doc, indent);
      CHECK(first_offence(text, "\n") == "");
      auto back = parse_json(text);
      REQUIRE(back.has_value());
      // What was UTF-8 reads back unchanged (bytes that are not UTF-8 become U+FFFD, as before).
      for (std::size_t i = 0; i < k_hostile.size(); ++i)
        if (security::is_utf8(k_hostile[i]))
          CHECK((*back)["k" + std::to_string(i) + k_hostile[i]][0] == k_hostile[i]);
    }
  }

} // TEST_SUITE
