// No value from a snapshot becomes a command in a rendered script (docs/security.md, "Scripts"): the two
// ways a value enters a script (script_text.hpp), judged by bash itself, and the recipe loader's refusal of
// a {{name}} that stands where its quotes would not quote.
#include "fix/params.hpp"
#include "fix/render.hpp"
#include "fix/script_text.hpp"
#include "security/inert_text.hpp"
#include "system/process.hpp"
#include "util/text.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::fix;
using security::first_offence;

namespace {

const std::vector<std::string> k_words = {
    "plain",
    "",
    "it's \"quoted\"",
    "$(touch CANARY)`touch CANARY`;touch CANARY|&&",
    "a\nb\r\nc",
    "\nLIST\ntouch CANARY\n",
    "back\\slash\\",
    "\\'",
    "\x1b[2J\x1b]52;c;Zm9v\x07\xc2\x9b"
    "31m\xe2\x80\xae",
    "bad \xff\xfe\xc3( utf-8",
    "=starts with equals",
    "~user",
    "{{user}}",
    "x\x7f\x01\x1f",
};

// What bash makes of `code` (a command line): its standard output.
std::string bash_prints(const std::string& code) {
  CommandSpec spec{"bash", {"bash", "--norc", "--noprofile", "-c", code}};
  auto r = run_process(spec, {{"PATH", "/usr/bin:/bin"}, {"LC_ALL", "C"}});
  REQUIRE_MESSAGE(r.ok(), r.err);
  return r.out;
}

} // namespace

TEST_SUITE("security") {

  TEST_CASE("script text: a quoted word is read back by bash unchanged, on one line of plain text") {
    std::string code = "set -u\n";
    for (const auto& w : k_words) {
      std::string q = shell_quote(w);
      CAPTURE(q);
      CHECK(q.find('\n') == std::string::npos);
      CHECK(first_offence(q) == "");
      code += "printf '%s\\0' " + q + "\n";
    }
    std::string out = bash_prints(code);
    std::vector<std::string> back;
    for (std::size_t at = 0, end; (end = out.find('\0', at)) != std::string::npos; at = end + 1)
      back.push_back(out.substr(at, end - at));
    CHECK(back == k_words);
    CHECK_THROWS_AS(shell_quote(std::string("a\0b", 3)), std::invalid_argument);
  }

  TEST_CASE("script text: a comment is one inert line, whatever the value holds") {
    for (const auto& w : k_words) {
      std::string c = script_comment(w);
      CAPTURE(c);
      CHECK(c.find('\n') == std::string::npos);
      CHECK(first_offence(c) == "");
      // As the rest of a comment line, followed by a command that must still run: bash ignores it all.
      CHECK(bash_prints("# " + c + "\nprintf ok") == "ok");
    }
  }

  TEST_CASE("script text: {{name}} must stand where bash reads a word") {
    CHECK(misplaced_placeholder("gd_purge {{stack.packages}} --x") == "");
    CHECK(misplaced_placeholder("x={{user}}; y=$(f {{user}})") == "");
    CHECK(misplaced_placeholder("echo 'a' {{user}} \"b\" # {{user}} in a comment") == "");
    CHECK(misplaced_placeholder("cat <<'EOF'\nline {{!install.repo_url}}\nEOF\ngd_x {{user}}") == "");
    CHECK(misplaced_placeholder("echo \"{{user}}\"") != "");
    CHECK(misplaced_placeholder("echo 'x {{user}} y'") != "");
    CHECK(misplaced_placeholder("echo $'{{user}}'") != "");
    CHECK(misplaced_placeholder("echo \"a\\\" {{user}}\"") != "");
    CHECK(misplaced_placeholder("cat <<'EOF'\nexport X={{user}}\nEOF\n") != "");
    CHECK(misplaced_placeholder("cat <<-EOF\n\tX={{user}}\n\tEOF\n") != "");
    CHECK(misplaced_placeholder("cat <<-EOF\n\tX=1\n\tEOF\necho {{user}}") == "");
    CHECK(misplaced_placeholder("cat <<<{{user}}") == "");
    // Every built-in recipe passes (recipe_load refuses one that does not).
    CHECK(load_recipes().has_value());
  }

  TEST_CASE("script text: a rendered header holds only comment lines whatever the facts hold") {
    std::string evil = "x\n$(touch CANARY)\r\n`touch CANARY`\x1b[2J\xe2\x80\xae\xff";
    Plan plan;
    plan.kind = "fix";
    plan.id = "purge-rocm";
    plan.title = "Title" + evil;
    plan.description = {"What" + evil};
    plan.os.name = "Ubuntu" + evil;
    plan.os.id = "ubuntu" + evil;
    plan.os.version = "22.04" + evil;
    plan.host = "host" + evil;
    plan.kernel = "6.8" + evil;
    plan.source = "snapshot /tmp/b" + evil;
    plan.gpus = {"gpu0" + evil};
    plan.why = {"why" + evil};
    plan.notes = {"note" + evil};
    plan.must_pass = {"check" + evil};
    plan.steps.push_back(
        {"purge-rocm.x", "Step" + evil, "true", "true", "fixes/x.yaml:1", true, false, false});
    std::string text = render_script(plan, "gd_main() { :; }", "test").text;
    // The header ends where the preamble (constant code: render.cpp) begins, before set -euo pipefail.
    auto header_end = text.find("\n# ---- a fixed PATH and an environment without the caller's hooks");
    REQUIRE(header_end != std::string::npos);
    REQUIRE(header_end < text.find("\nset -euo pipefail\n"));
    for (const auto& line : text::lines(text.substr(0, header_end)))
      CHECK_MESSAGE((line.empty() || line[0] == '#'), line);
    CHECK(first_offence(text, "\n") == "");
    // The code part keeps the exact values: bash prints back the host the script was made for.
    CHECK(bash_prints(text.substr(header_end) + "\nprintf %s \"$GD_FOR_HOST\"") == plan.host);
    CHECK_NOTHROW(render_plan_summary(plan));
    CHECK(first_offence(render_plan_summary(plan), "\n") == "");
  }

} // TEST_SUITE
