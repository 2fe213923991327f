// The fix data: recipes, migrations, stack tables and the script library load; they agree with the check
// catalogue; a broken recipe is refused with its file and line.
#include "check_fixtures.hpp"
#include "fix/params.hpp"
#include "fix_fixtures.hpp"
#include "unit/testutil.hpp"
#include "util/linear_regex.hpp"
#include "util/text.hpp"

#include <filesystem>
#include <map>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;
namespace fs = std::filesystem;

namespace {

// A scratch source folder with fixes/ holding one given recipe file (and the real migrate.yaml and lib.bash).
struct ScratchFixes {
  TempDir dir{"gpudoctor-fix"};
  const fs::path& root = dir.path();
  ScratchFixes(const std::string& name, const std::string& content) {
    fs::create_directories(root / "fixes");
    for (const char* keep :
         {"migrate.yaml", "lib.bash", "purge-rocm.yaml", "purge-nvidia.yaml", "install-nvidia.yaml",
          "install-rocm.yaml", "torch-reinstall.yaml", "reboot.yaml", "blacklist-nouveau.yaml",
          "groups-render-video.yaml", "enroll-mok.yaml"})
      fs::copy_file(fs::path(GPUDOCTOR_SOURCE_DIR) / "fixes" / keep, root / "fixes" / keep);
    write_text(root / "fixes" / name, content);
  }
  std::string error() const {
    auto r = fix::load_recipes(root.string());
    return r ? std::string("(loaded)") : r.error();
  }
};

const char* kGood = R"(id: demo
title: Demo
description: A demo.
steps:
  - id: one
    title: One
    root: false
    run: gd_say {{user}}
    verify: "true"
)";

} // namespace

TEST_CASE("fix data: the built-in recipes, migrations, stack tables and library load") {
  const auto& book = recipes();
  CHECK(book.recipes.size() >= 17);
  CHECK(book.migrations.size() == 2);
  CHECK(text::contains(book.library, "gd_main()"));
  CHECK(stacks().vendor("amd") != nullptr);
  CHECK(stacks().vendor("nvidia") != nullptr);
  auto from_source = fix::load_recipes(GPUDOCTOR_SOURCE_DIR);
  REQUIRE(from_source.has_value());
  CHECK(from_source->recipes.size() == book.recipes.size());
}

TEST_CASE("fix data: recipes are fix ids and cover both families where they can") {
  const auto& cat = catalogue();
  std::set<std::string> debian_only = {"repo-fix-codename"};
  for (const auto& r : recipes().recipes) {
    CAPTURE(r.id);
    CHECK_MESSAGE(cat.find_fix(r.id) != nullptr, "fixes/catalogue.yaml has no entry for " << r.id);
    CHECK(r.has_steps_for(fix::Family::debian));
    if (!debian_only.count(r.id)) CHECK(r.has_steps_for(fix::Family::rhel));
  }
  for (const auto& m : recipes().migrations)
    for (const auto& id : m.must_pass)
      CHECK_MESSAGE(cat.find(id) != nullptr, id << " is not a check id");
  // Every fix a check points to has a recipe, except the ones done by hand.
  std::set<std::string> manual = {};
  for (const auto& f : cat.fixes)
    if (!manual.count(f.id)) CHECK_MESSAGE(recipes().find(f.id) != nullptr, "no recipe for fix " << f.id);
}

TEST_CASE("fix data: a broken recipe is refused with its file and line") {
  CHECK(ScratchFixes("demo.yaml", kGood).error() == "(loaded)");
  std::string bad_field = kGood;
  bad_field.replace(bad_field.find("    root: false"), 15, "    root: false\n    sudo: yes");
  CHECK(text::contains(ScratchFixes("demo.yaml", bad_field).error(),
                       "fixes/demo.yaml:8: unknown field 'sudo'"));
  std::string no_root = kGood;
  no_root.erase(no_root.find("    root: false\n"), 16);
  CHECK(
      text::contains(ScratchFixes("demo.yaml", no_root).error(), "fixes/demo.yaml:5: step one: say whether"));
  std::string no_verify = kGood;
  no_verify.erase(no_verify.find("    verify: \"true\"\n"));
  CHECK(text::contains(ScratchFixes("demo.yaml", no_verify).error(), "has no verify for debian"));
  std::string bad_param = kGood;
  bad_param.replace(bad_param.find("{{user}}"), 8, "{{usr}}");
  CHECK(text::contains(ScratchFixes("demo.yaml", bad_param).error(),
                       "fixes/demo.yaml:8: {{usr}} is not a parameter"));
  CHECK(text::contains(ScratchFixes("demo.yaml", std::string(kGood) + "  - id: [\n").error(),
                       "fixes/demo.yaml:"));
  CHECK(text::contains(ScratchFixes("other.yaml", kGood).error(), "recipe demo must be in fixes/demo.yaml"));
}

TEST_CASE("fix data: a recipe's remedies: is refused, naming the one place the check-fix link is written") {
  // It repeated checks/catalogue.yaml's fixes: and drifted from it (probe.p2p, stack.leftover-paths).
  std::string err = ScratchFixes("demo.yaml", std::string(kGood) + "remedies: [driver.nouveau]\n").error();
  CAPTURE(err);
  CHECK(text::contains(err, "fixes/demo.yaml:10: remedies: is gone"));
  CHECK(text::contains(err, "checks/catalogue.yaml"));
}

TEST_CASE("fix data: includes that form a cycle are refused, naming it") {
  // Before the guard a self-include loaded, and planning it recursed until the stack overflowed.
  CHECK(text::contains(ScratchFixes("demo.yaml", std::string(kGood) + "include: [demo]\n").error(),
                       "fixes/demo.yaml: its includes form a cycle: demo -> demo"));
  CHECK(ScratchFixes("demo.yaml", std::string(kGood) + "include: [reboot]\n").error() == "(loaded)");
}

TEST_CASE("fix data: a recipe reached twice adds its steps once") {
  ScratchFixes scratch("demo.yaml", std::string(kGood) + "include: [reboot, reboot]\n");
  auto book = fix::load_recipes(scratch.root.string());
  REQUIRE_MESSAGE(book.has_value(), (book ? std::string() : book.error()));
  auto m = open_machine("tests/machines/nvidia-rtx3090-healthy/snapshot");
  fix::PlanContext ctx = m->context();
  fix::PlanContext scratch_ctx{ctx.facts, ctx.kb, ctx.stacks, *book, ctx.inventory, ctx.results, ctx.options};
  auto plan = fix::plan_fix("demo", scratch_ctx);
  REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
  std::map<std::string, int> count;
  for (const auto& step : plan->steps)
    ++count[step.id];
  CHECK(count["demo.one"] == 1);
  for (const auto& [id, n] : count) {
    CAPTURE(id);
    CHECK(n == 1);
  }
  CHECK(std::any_of(plan->steps.begin(), plan->steps.end(),
                    [](const fix::PlannedStep& s) { return text::starts_with(s.id, "reboot."); }));
}

TEST_CASE("fix data: a purge takes the vendor's packages only, never Mesa's or the other vendor's") {
  const auto& s = stacks();
  const auto& amd = *s.vendor("amd");
  const auto& nv = *s.vendor("nvidia");
  for (const char* p :
       {"rocm-core", "rocm-hip-sdk", "hip-runtime-amd", "amdgpu-dkms", "amdgpu-dkms-firmware",
        "amdgpu-install", "rocminfo", "hsa-rocr", "miopen-hip", "rccl", "libamdhip64-5", "hipcc",
        // AMD's own builds of libdrm and Mesa (amdgpu-install's graphics use case) are AMD's.
        "libdrm-amdgpu-amdgpu1", "libdrm2-amdgpu", "libdrm-amdgpu-common", "libgl1-amdgpu-mesa-dri",
        "libegl1-amdgpu-mesa", "libgbm1-amdgpu", "mesa-amdgpu-va-drivers", "xserver-xorg-amdgpu-video-amdgpu",
        "libllvm17.0.60001-amdgpu", "amdgpu-core"})
    CHECK_MESSAGE(vendor_package(s, amd, p), std::string(p));
  for (const char* p :
       {"cuda-toolkit-12-4", "nvidia-driver-550", "nvidia-open-580", "libnvidia-compute-550", "cuda-keyring",
        "libcudnn9-cuda-12", "linux-modules-nvidia-550-generic", "kmod-nvidia-latest-dkms",
        "nvidia-container-toolkit", "xserver-xorg-video-nvidia-560"})
    CHECK_MESSAGE(vendor_package(s, nv, p), std::string(p));
  for (const char* p : {"libdrm-amdgpu1", "libdrm2", "mesa-vulkan-drivers", "libgl1-mesa-dri", "libglx-mesa0",
                        "xserver-xorg-video-amdgpu", "firmware-amd-graphics", "linux-firmware", "dkms",
                        "linux-headers-6.8.0-45-generic", "xserver-xorg-video-nouveau", "libdrm-amdgpu",
                        "mesa-dri-drivers", "libdrm-radeon1", "libgbm1", "mesa-va-drivers", "libegl-mesa0"}) {
    CHECK_MESSAGE(!vendor_package(s, amd, p), std::string(p));
    CHECK_MESSAGE(!vendor_package(s, nv, p), std::string(p));
  }
  for (const char* p : {"cuda-toolkit-12-4", "nvidia-driver-550", "libnvidia-compute-550"})
    CHECK_MESSAGE(!vendor_package(s, amd, p), std::string(p));
  for (const char* p : {"rocm-core", "hip-runtime-amd", "amdgpu-dkms"})
    CHECK_MESSAGE(!vendor_package(s, nv, p), std::string(p));
}

TEST_CASE("fix data: the inventory of a snapshot lists exactly what is there") {
  auto m = open_machine("tests/fixes/machines/rocky9-mi210-rocm/snapshot");
  const auto& amd = m->inventory.amd;
  CHECK(amd.packages == std::vector<std::string>{"amdgpu-dkms", "amdgpu-dkms-firmware", "hip-runtime-amd",
                                                 "hsa-rocr", "rccl", "rocm-core", "rocm-hip-runtime",
                                                 "rocm-smi-lib", "rocminfo"});
  CHECK(amd.sources ==
        std::vector<std::string>{"/etc/yum.repos.d/amdgpu.repo", "/etc/yum.repos.d/rocm.repo"});
  CHECK(std::find(amd.trees.begin(), amd.trees.end(), "/opt/rocm-6.0.2") != amd.trees.end());
  CHECK(m->inventory.nvidia.packages.empty());
  CHECK(m->inventory.homes == std::vector<std::string>{"/home/ravi"});

  auto leftovers = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  CHECK(leftovers->inventory.amd.packages ==
        std::vector<std::string>{"hip-runtime-amd", "rocm-core", "rocminfo"});
  CHECK(leftovers->inventory.amd.config_packages == std::vector<std::string>{"amdgpu-dkms"});
  CHECK(leftovers->inventory.amd.alternatives == std::vector<std::string>{"rocm"});
}

TEST_CASE("fix data: every when_system_sets and unsets pattern compiles for the linear matcher") {
  // plan.cpp matches them with util/linear_regex (linear on a snapshot's names); one that does not compile
  // would silently match nothing.
  std::vector<std::string> patterns;
  for (const auto& v : stacks().vendors)
    patterns.push_back(v.profile_vars);
  for (const auto& r : recipes().recipes) {
    if (!r.unsets.empty()) patterns.push_back(r.unsets);
    for (const auto& s : r.steps)
      if (!s.when_system_sets.empty() && !fix::is_known_param(s.when_system_sets))
        patterns.push_back(s.when_system_sets);
  }
  CHECK(patterns.size() >= 8);
  for (const auto& p : patterns) {
    auto re = LinearRegex::compile(p);
    CHECK_MESSAGE(re.has_value(), p, ": ", re ? std::string() : re.error());
  }
}

TEST_CASE("fix data: the planner says what is wrong with a value it cannot put in a script, never throws") {
  // The migration's last step is expanded after the recipes'; a raw placeholder there met a value with a
  // shell metacharacter, and the planner's std::invalid_argument escaped its std::expected API (exit 3).
  auto m = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  fix::RecipeBook book = recipes();
  book.check_step.run = "gd_post_check {{!post.checks}}";
  for (auto& migration : book.migrations)
    migration.must_pass.push_back("x$(reboot)");
  auto base = m->context();
  fix::PlanContext ctx{base.facts, base.kb, base.stacks, book, base.inventory, base.results, base.options};
  std::expected<fix::Plan, std::string> plan = std::unexpected("not planned");
  CHECK_NOTHROW(plan = fix::plan_migration("nvidia", ctx));
  REQUIRE_FALSE(plan.has_value());
  CHECK(text::contains(plan.error(), "post.checks"));
}

TEST_CASE("fix data: env-cleanup removes every variable env.visible-devices-foreign names for its vendor") {
  // The check's finding offers env-cleanup, which removes the absent vendor's profile_vars: every variable
  // of the vendor tables must be one of them, or the fix would leave what the check flagged.
  const EnvKnowledge& env = test::kb().env;
  REQUIRE_FALSE(env.vendor_variables.empty());
  for (const auto& row : env.vendor_variables) {
    CAPTURE(row.name);
    const VendorStack* stack = stacks().vendor(row.vendor);
    REQUIRE(stack != nullptr);
    auto re = LinearRegex::compile(stack->profile_vars);
    REQUIRE(re.has_value());
    CHECK(re->full_match(row.name));
    if (row.prefix) CHECK(re->full_match(row.name + "_1"));
  }
}
