// "Did you mean" (util/suggest.hpp): the near word is found, a far or ambiguous one is not suggested, and the
// cost stays bounded for a hostile word.
#include "util/suggest.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_CASE("suggest: a typo of a subcommand, an option or an id finds it") {
  const std::vector<std::string> subcommands = {"check",   "bundle", "probe", "explain", "fix",
                                                "migrate", "undo",   "fleet", "diff",    "completion"};
  CHECK(nearest_word("chek", subcommands) == "check");
  CHECK(nearest_word("chcek", subcommands) == "check"); // a swap is one edit
  CHECK(nearest_word("bundel", subcommands) == "bundle");
  CHECK(nearest_word("migrat", subcommands) == "migrate");
  CHECK(nearest_word("compl", subcommands) == "completion"); // the one it is a prefix of
  CHECK(nearest_word("--formt", {"--format", "--from", "--only"}) == "--format");
  CHECK(nearest_word("nvidia.fabric-manger", {"nvidia.fabric-manager", "nvidia.driver-loaded"}) ==
        "nvidia.fabric-manager");
  CHECK(did_you_mean("chek", subcommands) == " (did you mean check?)");
}

TEST_CASE("suggest: nothing far off, nothing ambiguous, nothing for the word itself") {
  const std::vector<std::string> subcommands = {"check", "bundle", "probe", "explain", "fix", "migrate"};
  CHECK(nearest_word("frobnicate", subcommands).empty());
  CHECK(nearest_word("", subcommands).empty());
  CHECK(nearest_word("x", subcommands).empty());
  CHECK(nearest_word("check", subcommands).empty());
  CHECK(nearest_word("fob", {"foo", "fib"}).empty());            // two at one edit: neither
  CHECK(nearest_word("--for", {"--format", "--force"}).empty()); // a prefix of both
  CHECK(nearest_word("--fo", {"--format", "--force"}).empty());  // two letters are no prefix
  CHECK(did_you_mean("frobnicate", subcommands).empty());
}

TEST_CASE("suggest: a word too long to be a typo is not compared") {
  std::string hostile(100000, 'a');
  std::vector<std::string> many(1000, std::string(64, 'a'));
  CHECK(nearest_word(hostile, many).empty());
  CHECK(nearest_word(std::string(64, 'a') + "b", many).empty());
}
