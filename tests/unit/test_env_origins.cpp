// Where a variable is set: the profiles' assignments (variable, file, line) that collect/stack_paths keeps,
// the env.* findings that say "It is set in /home/lena/.bashrc:17" or that no profile read sets it, and the
// plan of a recipe whose profile steps would leave a variable that comes from elsewhere (issue 32).
#include "check_fixtures.hpp"
#include "collect/collectors.hpp"
#include "fix_fixtures.hpp"

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// The machine with its profiles read: `file:line` assigns HSA_OVERRIDE_GFX_VERSION, or none does.
Facts amd_with_profiles(const std::string& file, int line, std::size_t profiles = 2) {
  Facts f = amd_machine({110000});
  set_env(f, "HSA_OVERRIDE_GFX_VERSION", "9.4.2");
  f.stack_paths.profiles_read = profiles;
  f.stack_paths.files = {"/home/lena/.bashrc", "/etc/profile"};
  f.stack_paths.assignments.push_back({"HISTSIZE", "/home/lena/.bashrc", 5});
  if (!file.empty()) f.stack_paths.assignments.push_back({"HSA_OVERRIDE_GFX_VERSION", file, line});
  return f;
}

bool has_note(const fix::Plan& plan, const std::string& words) {
  return std::ranges::any_of(plan.notes, [&](const std::string& n) { return contains(n, words); });
}

} // namespace

TEST_CASE("collect: every assignment of the profiles read is kept with its file and line") {
  MemView v;
  v.who.home = "/home/lena";
  v.files["/home/lena/.bashrc"] = "# ~/.bashrc\nHISTSIZE=1000\n\nexport HSA_OVERRIDE_GFX_VERSION=9.4.2\n";
  v.files["/etc/environment"] = "PATH=\"/usr/local/bin:/usr/bin\"\nCUDA_VISIBLE_DEVICES=0\n";
  v.files["/etc/ld.so.conf"] = "include /etc/ld.so.conf.d/*.conf\n";
  PathFacts out;
  collect_stack_paths(v, EnvFacts{}, ToolkitFacts{}, out);
  CHECK(out.profiles_read == 2); // ld.so.conf is read too, but is not a profile
  auto at = [&](const std::string& name) -> std::string {
    for (const auto& a : out.assignments)
      if (a.name == name) return a.file + ":" + std::to_string(a.line);
    return "";
  };
  CHECK(at("HISTSIZE") == "/home/lena/.bashrc:2");
  CHECK(at("HSA_OVERRIDE_GFX_VERSION") == "/home/lena/.bashrc:4");
  CHECK(at("CUDA_VISIBLE_DEVICES") == "/etc/environment:2");
}

TEST_CASE("check: an env finding says which profile line sets the variable") {
  Facts f = amd_with_profiles("/home/lena/.bashrc", 17);
  auto r = single(run_check("env.hsa-override-mismatch", f));
  CHECK(r.status == Status::error);
  CHECK(contains(r.message, "It is set in /home/lena/.bashrc:17."));
  CHECK(r.evidence.front() == "env HSA_OVERRIDE_GFX_VERSION=9.4.2 (set in /home/lena/.bashrc:17)");
}

TEST_CASE("check: an env finding says when no profile read sets the variable") {
  Facts f = amd_with_profiles("", 0);
  auto r = single(run_check("env.hsa-override-mismatch", f));
  CHECK(contains(r.message, "None of the 2 profiles gpudoctor read sets it"));
  CHECK(contains(r.message, "a systemd unit's Environment="));
  CHECK(r.evidence.front() == "env HSA_OVERRIDE_GFX_VERSION=9.4.2 (set in no profile gpudoctor read)");
  SUBCASE("profiles left unread are counted") {
    f.stack_paths.not_read = {"/home/lena/.zshrc: over 1 MiB"};
    CHECK(contains(single(run_check("env.hsa-override-mismatch", f)).message, "(1 left unread)"));
  }
}

TEST_CASE("check: without profiles read an env finding claims nothing about them") {
  Facts f = amd_with_profiles("", 0, 0);
  auto r = single(run_check("env.hsa-override-mismatch", f));
  CHECK_FALSE(contains(r.message, "profile"));
  CHECK_FALSE(contains(r.message, "It is set in"));
  CHECK(r.evidence.front() == "env HSA_OVERRIDE_GFX_VERSION=9.4.2");
}

TEST_CASE("check: many assignments of one variable are listed three at a time") {
  Facts f = amd_with_profiles("/home/lena/.bashrc", 1);
  for (int line = 2; line <= 6; ++line)
    f.stack_paths.assignments.push_back({"HSA_OVERRIDE_GFX_VERSION", "/home/lena/.bashrc", line});
  auto r = single(run_check("env.hsa-override-mismatch", f));
  CHECK(contains(r.message, "/home/lena/.bashrc:1, /home/lena/.bashrc:2, /home/lena/.bashrc:3 and 3 more."));
}

TEST_CASE("check: an NCCL variable of the environment says which profile sets it") {
  Facts f = nvidia_machine();
  set_env(f, "NCCL_SINGLE_RING_THRESHOLD", "1");
  f.stack_paths.profiles_read = 1;
  f.stack_paths.assignments.push_back({"NCCL_SINGLE_RING_THRESHOLD", "/etc/profile.d/nccl.sh", 3});
  auto r = single(run_check("env.nccl-unknown", f));
  CHECK(r.status == Status::warn);
  CHECK(contains(r.message, "remove it from the environment (set in /etc/profile.d/nccl.sh:3)"));
}

TEST_CASE("fix: a plan notes a variable its profile steps would leave, and only that") {
  auto m = open_machine("tests/machines/amd-rx7900xtx-hsa-override-942/snapshot");
  auto ctx = m->context();
  Facts facts = ctx.facts;
  facts.stack_paths.profiles_read = 1;
  facts.stack_paths.assignments.clear();
  fix::PlanContext elsewhere{facts, ctx.kb, ctx.stacks, ctx.book, ctx.inventory, ctx.results, ctx.options};
  auto plan = fix::plan_fix("env-unset-hsa-override", elsewhere);
  REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
  CHECK(has_note(*plan, "HSA_OVERRIDE_GFX_VERSION is set where gpudoctor ran, but the one profile it read "
                        "does not set it: the profile steps leave it."));
  facts.stack_paths.profiles_read = 3;
  auto three = fix::plan_fix("env-unset-hsa-override", elsewhere);
  REQUIRE(three.has_value());
  CHECK(has_note(*three, "but none of the 3 profiles it read sets it"));

  facts.stack_paths.assignments.push_back({"HSA_OVERRIDE_GFX_VERSION", "/home/lena/.bashrc", 17});
  auto in_profile = fix::plan_fix("env-unset-hsa-override", elsewhere);
  REQUIRE(in_profile.has_value());
  CHECK_FALSE(has_note(*in_profile, "is set where gpudoctor ran"));

  // A recipe that unsets other variables says nothing of this one.
  auto other = fix::plan_fix("env-visible-devices", elsewhere);
  REQUIRE(other.has_value());
  CHECK_FALSE(has_note(*other, "is set where gpudoctor ran"));
}
