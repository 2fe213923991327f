// Package versions in dpkg's and rpm's order (util/package_version.hpp): the upstream test vectors, then the
// real dpkg and rpm of this machine over generated versions, where they are installed.
#include "collect/collectors.hpp"
#include "parse/parsers_system.hpp"
#include "system/live_view.hpp"
#include "testutil.hpp"
#include "util/package_version.hpp"
#include "util/text.hpp"

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

int sign(int c) {
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

using Vector = std::tuple<const char*, const char*, int>;

// rpm's tests/rpmvercmp.at (rpm-software-management/rpm at 7f3fdf6868d72fbdef3386345ff39b3744fa4b14), every
// RPMVERCMP row that is not commented out: rpmvercmp of one field.
const Vector k_rpm[] = {
    {"1.0", "1.0", 0},
    {"1.0", "2.0", -1},
    {"2.0", "1.0", 1},
    {"2.0.1", "2.0.1", 0},
    {"2.0", "2.0.1", -1},
    {"2.0.1", "2.0", 1},
    {"2.0.1a", "2.0.1a", 0},
    {"2.0.1a", "2.0.1", 1},
    {"2.0.1", "2.0.1a", -1},
    {"5.5p1", "5.5p1", 0},
    {"5.5p1", "5.5p2", -1},
    {"5.5p2", "5.5p1", 1},
    {"5.5p10", "5.5p10", 0},
    {"5.5p1", "5.5p10", -1},
    {"5.5p10", "5.5p1", 1},
    {"10xyz", "10.1xyz", -1},
    {"10.1xyz", "10xyz", 1},
    {"xyz10", "xyz10", 0},
    {"xyz10", "xyz10.1", -1},
    {"xyz10.1", "xyz10", 1},
    {"xyz.4", "xyz.4", 0},
    {"xyz.4", "8", -1},
    {"8", "xyz.4", 1},
    {"xyz.4", "2", -1},
    {"2", "xyz.4", 1},
    {"5.5p2", "5.6p1", -1},
    {"5.6p1", "5.5p2", 1},
    {"5.6p1", "6.5p1", -1},
    {"6.5p1", "5.6p1", 1},
    {"6.0.rc1", "6.0", 1},
    {"6.0", "6.0.rc1", -1},
    {"10b2", "10a1", 1},
    {"10a2", "10b2", -1},
    {"1.0aa", "1.0aa", 0},
    {"1.0a", "1.0aa", -1},
    {"1.0aa", "1.0a", 1},
    {"10.0001", "10.0001", 0},
    {"10.0001", "10.1", 0},
    {"10.1", "10.0001", 0},
    {"10.0001", "10.0039", -1},
    {"10.0039", "10.0001", 1},
    {"4.999.9", "5.0", -1},
    {"5.0", "4.999.9", 1},
    {"20101121", "20101121", 0},
    {"20101121", "20101122", -1},
    {"20101122", "20101121", 1},
    {"2_0", "2_0", 0},
    {"2.0", "2_0", 0},
    {"2_0", "2.0", 0},
    {"a", "a", 0},
    {"a+", "a+", 0},
    {"a+", "a_", 0},
    {"a_", "a+", 0},
    {"+a", "+a", 0},
    {"+a", "_a", 0},
    {"_a", "+a", 0},
    {"+_", "+_", 0},
    {"_+", "+_", 0},
    {"_+", "_+", 0},
    {"+", "_", 0},
    {"_", "+", 0},
    {"1.0~rc1", "1.0~rc1", 0},
    {"1.0~rc1", "1.0", -1},
    {"1.0", "1.0~rc1", 1},
    {"1.0~rc1", "1.0~rc2", -1},
    {"1.0~rc2", "1.0~rc1", 1},
    {"1.0~rc1~git123", "1.0~rc1~git123", 0},
    {"1.0~rc1~git123", "1.0~rc1", -1},
    {"1.0~rc1", "1.0~rc1~git123", 1},
    {"1.0^", "1.0^", 0},
    {"1.0^", "1.0", 1},
    {"1.0", "1.0^", -1},
    {"1.0^git1", "1.0^git1", 0},
    {"1.0^git1", "1.0", 1},
    {"1.0", "1.0^git1", -1},
    {"1.0^git1", "1.0^git2", -1},
    {"1.0^git2", "1.0^git1", 1},
    {"1.0^git1", "1.01", -1},
    {"1.01", "1.0^git1", 1},
    {"1.0^20160101", "1.0^20160101", 0},
    {"1.0^20160101", "1.0.1", -1},
    {"1.0.1", "1.0^20160101", 1},
    {"1.0^20160101^git1", "1.0^20160101^git1", 0},
    {"1.0^20160102", "1.0^20160101^git1", 1},
    {"1.0^20160101^git1", "1.0^20160102", -1},
    {"1.0~rc1^git1", "1.0~rc1^git1", 0},
    {"1.0~rc1^git1", "1.0~rc1", 1},
    {"1.0~rc1", "1.0~rc1^git1", -1},
    {"1.0^git1~pre", "1.0^git1~pre", 0},
    {"1.0^git1", "1.0^git1~pre", 1},
    {"1.0^git1~pre", "1.0^git1", -1},
};

// dpkg's lib/dpkg/t/t-version.c (guillemj/dpkg at 0d609e2c8c0070310b531d2d470f79044121bea8), its compare and
// parse cases written as version strings, and Debian Policy 5.6.12's tilde example (~~ < ~~a < ~ < "" < a).
const Vector k_dpkg[] = {
    {"1-1", "2-1", -1},
    {"1-1", "1-2", -1},
    {"0-0", "0-0", 0},
    {"0-00", "00-0", 0},
    {"1:2-3", "1:2-3", 0},
    {"0-0", "1:0-0", -1},
    {"1:0-0", "0-0", 1},
    {"a-0", "b-0", -1},
    {"b-0", "a-0", 1},
    {"0-a", "0-b", -1},
    {"0-b", "0-a", 1},
    {"0", "0:0", 0},
    {"0:0-", "0", 0},
    {"0:0-0", "0-0", 0},
    {"1:0", "1:0-", 0},
    {"0:0-0-0", "0-0-0", 0},
    {"0:0:0-0", "0:0:0-0", 0},
    {"1.0~~", "1.0~~a", -1},
    {"1.0~~a", "1.0~", -1},
    {"1.0~", "1.0", -1},
    {"1.0", "1.0a", -1},
    {"2.30", "2.4", 1},
    {"1.0+dfsg", "1.0a", 1},
    {"2.1.0~rc1", "2.1.0", -1},
    {"2:1.0", "10.0", 1},
    {"1.0-1ubuntu1", "1.0-1", 1},
    {"570.133.20-0ubuntu0.22.04.1", "570.133.20-0ubuntu0.22.04.2", -1},
    {"1.001", "1.1", 0},
};

} // namespace

TEST_CASE("package versions: rpm's rpmvercmp vectors") {
  for (const auto& [a, b, want] : k_rpm) {
    CAPTURE(a);
    CAPTURE(b);
    CHECK(sign(rpm_field_compare(a, b)) == want);
  }
  // Whole EVRs: the epoch first, the release only where both have one.
  CHECK(rpm_version_compare("1:1.0-1.el9", "2.0-1.el9") > 0);
  CHECK(rpm_version_compare("5.14.0-503.el9", "5.14.0-427.el9") > 0);
  CHECK(rpm_version_compare("1.0-1", "1.0") == 0);
  CHECK(rpm_version_compare("2.1.0~rc1-1", "2.1.0-1") < 0);
  // rpm -qa with two of a package installed keeps the newest in rpm's order (the numeric compare took the
  // release candidate, whose "~rc1" it cannot read, for the same version and then for the newer release).
  auto v = parse::rpm_qa_versions("rocm-core 6.4.0~rc1-2.el9\nrocm-core 6.4.0-1.el9\n"
                                  "kernel 5.14.0-503.el9\nkernel 5.14.0-427.el9\n");
  CHECK(v["rocm-core"] == "6.4.0-1.el9");
  CHECK(v["kernel"] == "5.14.0-503.el9");
}

TEST_CASE("package versions: an RPM machine's package at its newest, whatever rpm -qa's order") {
  test::MemView v;
  v.dirs.insert("/var/lib/rpm");
  v.command("rpm-qa", "kernel 5.14.0-503.el9\nrocm-core 6.4.0-1.el9\nkernel 5.14.0-427.el9\n"
                      "rocm-core 6.4.0~rc1-2.el9\n");
  PackageFacts packages;
  collect_packages(v, packages);
  REQUIRE(packages.readable);
  CHECK(packages.manager == "rpm");
  CHECK(packages.installed["kernel"] == "5.14.0-503.el9");
  CHECK(packages.installed["rocm-core"] == "6.4.0-1.el9");
}

TEST_CASE("package versions: dpkg's vectors and Debian Policy's order") {
  for (const auto& [a, b, want] : k_dpkg) {
    CAPTURE(a);
    CAPTURE(b);
    CHECK(sign(dpkg_version_compare(a, b)) == want);
    CHECK(sign(dpkg_version_compare(b, a)) == -want);
  }
}

TEST_CASE("package versions: garbage compares without a crash, each way the opposite") {
  const char* odd[] = {"",
                       ":",
                       "-",
                       "::--",
                       "~",
                       "^",
                       "99999999999999999999999999999:1",
                       "a:b-c",
                       "\xff\xfe",
                       "1.0-",
                       "-1.0",
                       "1..0",
                       "0000000000000000000000000000001"};
  for (const char* a : odd)
    for (const char* b : odd) {
      CHECK(sign(dpkg_version_compare(a, b)) == -sign(dpkg_version_compare(b, a)));
      CHECK(sign(rpm_version_compare(a, b)) == -sign(rpm_version_compare(b, a)));
    }
}

namespace {

// Versions from a small alphabet, the same on every run.
std::vector<std::pair<std::string, std::string>> generated(const std::string& alphabet, bool dpkg_syntax) {
  std::mt19937 rng(20261204);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  auto run = [&](std::size_t at_most) {
    std::string v;
    for (std::size_t n = pick(at_most + 1); n > 0; --n)
      v += alphabet[pick(alphabet.size())];
    return v;
  };
  // [epoch:]digit upstream[-revision]: the syntax dpkg accepts (it wants a digit first).
  auto one = [&](const std::string& upstream_start) {
    std::string v;
    if (dpkg_syntax && pick(5) == 0) v += std::to_string(pick(3)) + ":";
    v += upstream_start.empty() ? std::string(1, static_cast<char>('0' + pick(10))) : upstream_start;
    v += run(6);
    if (dpkg_syntax && pick(2) == 0) v += "-" + std::string(1, static_cast<char>('0' + pick(10))) + run(3);
    return v;
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < 300; ++i) {
    std::string a = one("");
    // Half the pairs share the start of the upstream version: that is where the orders differ.
    std::size_t digit = a.find_first_of("0123456789");
    std::string start = a.substr(digit, 1 + pick(4));
    start = start.substr(0, start.find('-'));
    std::string b = pick(2) ? one(start) : one("");
    out.emplace_back(a, b);
  }
  return out;
}

// Each pair's order by `compare` is the real tool's answer (-1, 0 or 1, in the pairs' order).
template <class Compare>
void agrees_with(const std::vector<std::pair<std::string, std::string>>& pairs,
                 const std::vector<std::string>& answers, Compare compare) {
  REQUIRE(answers.size() == pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    CAPTURE(pairs[i].first);
    CAPTURE(pairs[i].second);
    CHECK(sign(compare(pairs[i].first, pairs[i].second)) == std::stoi(answers[i]));
  }
}

} // namespace

TEST_CASE("package versions: the order of this machine's dpkg, over generated versions") {
  LiveView live;
  CommandResult probe =
      live.run({"dpkg-version", {"dpkg", "--version"}, std::chrono::milliseconds(5000), {}});
  if (!probe.found || probe.exit_code != 0) {
    MESSAGE("dpkg is not here: skipped");
    return;
  }
  auto pairs = generated("0123456789.+~ab", true);
  // One shell runs them all: prints -1, 0 or 1 per pair.
  std::string script = "for p in \"$@\"; do a=${p%% *}; b=${p#* }; "
                       "if dpkg --compare-versions \"$a\" lt \"$b\"; then echo -1; "
                       "elif dpkg --compare-versions \"$a\" eq \"$b\"; then echo 0; else echo 1; fi; done";
  std::vector<std::string> argv = {"bash", "-c", script, "bash"};
  for (const auto& [a, b] : pairs)
    argv.push_back(a + " " + b);
  CommandResult r = live.run({"dpkg-compare", argv, std::chrono::milliseconds(120000), {}});
  REQUIRE(r.exit_code == 0);
  agrees_with(pairs, text::lines(r.out), dpkg_version_compare);
}

TEST_CASE("package versions: the order of this machine's rpm, over generated versions") {
  LiveView live;
  auto pairs = generated("0123456789._~^ab", false);
  std::string lua = "%{lua:";
  for (const auto& [a, b] : pairs)
    lua += "print(rpm.vercmp('" + a + "', '" + b + "') .. ' ') ";
  lua += "}";
  CommandResult r = live.run({"rpm-vercmp", {"rpm", "--eval", lua}, std::chrono::milliseconds(30000), {}});
  if (!r.found || r.exit_code != 0) {
    MESSAGE("rpm with Lua is not here: skipped (" << r.err << r.error << ")");
    return;
  }
  agrees_with(pairs, text::split(text::trim(r.out), ' '), rpm_field_compare); // rpm's print writes no newline
}
