// The grammar of the version options (--driver, --cuda, --rocm, --torch): nothing but a version reaches a
// plan or a script. tests/security/command_line.sh checks the options themselves.
#include "app/cli_values.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_SUITE("security") {
  TEST_CASE("is_version_text: 1 to 4 numbers of 1 to 6 digits, separated by dots") {
    for (const char* good : {"570", "570.124.06", "12.8", "7.2.1", "2.6.0", "0", "1.2.3.4", "999999"})
      CHECK_MESSAGE(is_version_text(good), good);
    for (const char* bad :
         {"",   ".",  "1.",  ".1",     "1..2",  "1.2.3.4.5", "1234567", "12.8;", "12.8 ", " 12.8",
          "-1", "+1", "1e3", "12.8\n", "$(id)", "`id`",      "12.8'",   "v12.8", "12,8",  "latest"})
      CHECK_FALSE_MESSAGE(is_version_text(bad), bad);
    CHECK_FALSE(is_version_text(std::string("12\0.8", 5)));
  }

  TEST_CASE("version_problem names the value, escaped") {
    CHECK(version_problem("12.8").empty());
    auto message = version_problem("1\x1b[2J");
    CHECK(message.find("takes a version") != std::string::npos);
    CHECK(message.find('\x1b') == std::string::npos);
  }
}
