// The snapshot's JSON files are read within the limits of docs/security.md ("Limits"); each refusal names
// the file and the limit. tests/security/bounded_work.sh covers the same end to end, bundles included.
#include "system/snapshot_json.hpp"

#include <string>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;
using namespace gpudoctor::snapshot;

namespace {

bool says(const std::string& error, const std::string& part) {
  return error.find(part) != std::string::npos;
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("snapshot files: byte limits are checked before parsing") {
    std::string big(k_max_env_bytes + 1, ' ');
    CHECK(says(read_env(big).error, "env.json is larger than 16 MiB"));
    CHECK(says(read_stats(std::string(k_max_stat_bytes + 1, ' ')).error, "stat.json is larger than"));
    CHECK(says(read_commands(std::string(k_max_commands_bytes + 1, ' ')).error, "commands.json is larger"));
    CHECK(says(read_identity(std::string(k_max_identity_bytes + 1, ' ')).error, "identity.json is larger"));
    CHECK(says(read_manifest(std::string(k_max_manifest_bytes + 1, ' ')).error, "manifest.json is larger"));
  }

  TEST_CASE("snapshot files: entry limits") {
    std::string env = "{";
    for (std::size_t i = 0; i <= k_max_env_entries; ++i)
      env += fmt::format("{}\"V{}\":\"x\"", i ? "," : "", i);
    CHECK(says(read_env(env + "}").error, "more than 100000 variables"));

    std::string stat = "{";
    for (std::size_t i = 0; i <= k_max_stat_entries; ++i)
      stat += fmt::format("{}\"/dev/x{}\":{{\"type\":\"char\"}}", i ? "," : "", i);
    CHECK(says(read_stats(stat + "}").error, "more than 100000 paths"));

    std::string commands = "[";
    for (std::size_t i = 0; i <= k_max_commands; ++i)
      commands += fmt::format("{}{{\"key\":\"k{}\"}}", i ? "," : "", i);
    CHECK(says(read_commands(commands + "]").error, "more than 10000 commands"));

    std::string groups;
    for (std::size_t i = 0; i <= k_max_groups; ++i)
      groups += fmt::format("{}\"g{}\"", i ? "," : "", i);
    CHECK(says(read_identity("{\"groups\":[" + groups + "]}").error, "more than 65536 groups"));
  }

  TEST_CASE("snapshot files: what is at the limits is read") {
    std::string env = "{";
    for (std::size_t i = 0; i < k_max_env_entries; ++i)
      env += fmt::format("{}\"V{}\":\"x\"", i ? "," : "", i);
    auto read = read_env(env + "}");
    CHECK(read.ok());
    CHECK(read.value.size() == k_max_env_entries);
  }

  TEST_CASE("snapshot files: command output paths stay inside, numbers out of range do not wrap") {
    CHECK(says(read_commands(R"([{"key":"k","stdout":"../../etc/passwd"}])").error, "leaves the snapshot"));
    CHECK(says(read_commands(R"([{"key":"k","stderr":"/etc/passwd"}])").error, "leaves the snapshot"));
    auto c = read_commands(R"([{"key":"k","exit":99999999999,"signal":-99999999999}])");
    REQUIRE(c.ok());
    CHECK(*c.value[0].result.exit_code == 0x7fffffff);
    auto id = read_identity(R"({"uid": 99999999999, "gids": [1, 99999999999]})");
    REQUIRE(id.ok());
    CHECK(id.value.uid == 0xffffffffu);
    CHECK(id.value.gids.size() == 1);
  }

  TEST_CASE("snapshot files: wrong shapes are errors naming the file, never exceptions") {
    for (const char* text : {"[]", "1", "\"x\"", "null", "{\"a\":", ""}) {
      CAPTURE(text);
      CHECK_FALSE(read_manifest(text).ok());
      CHECK_FALSE(read_env(text).ok());
      CHECK_FALSE(read_stats(text).ok());
      CHECK_FALSE(read_identity(text).ok());
    }
    CHECK_FALSE(read_env(R"({"A": 1})").ok());
    CHECK_FALSE(read_stats(R"({"/dev/x": {"type": "char", "mode": "99999"}})").ok());
    CHECK_FALSE(read_commands(R"({})").ok());
    CHECK_FALSE(read_commands(R"([{"argv": ["x"]}])").ok());
  }
}
