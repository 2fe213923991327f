// Golden scripts: what `gpudoctor fix` and `migrate` write for representative machines, byte for byte. Each
// is a descriptor, tests/fixes/golden/<machine>--<what>.case (found by tests/CMakeLists.txt: one test case
// each, "fix golden: <machine>--<what>", so one runs and updates alone), beside the script it must give,
// <machine>--<what>.sh. GPUDOCTOR_UPDATE_GOLDEN=1 rewrites the scripts: review the diff.
// A descriptor's lines are "key: value": snapshot (relative to the source folder), then fix (a fix id) or
// migrate (the vendor to migrate to), and optionally driver, cuda, rocm, torch (the versions asked for).
// Where a script pastes fixes/lib.bash, a golden holds one marker line instead (the library is the same in
// every script and is checked on its own); tests/e2e/fix_scripts.sh pastes it back and runs shellcheck.
#include "fix/render.hpp"
#include "fix_fixtures.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;
namespace fs = std::filesystem;

namespace {

const fs::path k_golden_dir = fs::path(GPUDOCTOR_SOURCE_DIR) / "tests/fixes/golden";

// Keep in step with tests/e2e/fix_scripts.sh, which replaces this line by fixes/lib.bash.
constexpr const char* k_library_marker = "# @gpudoctor-golden: fixes/lib.bash is pasted here\n";

struct Golden {
  std::string snapshot; // relative to the source folder
  std::string kind;     // "fix" or "migrate"
  std::string what;     // fix id, or the vendor to migrate to
  fix::VersionRequest versions;
};

// tests/fixes/golden/<name>.case; a line it does not know fails the case.
Golden read_descriptor(const std::string& name) {
  Golden g;
  const std::map<std::string, std::string*> fields = {{"snapshot", &g.snapshot},
                                                      {"driver", &g.versions.driver},
                                                      {"cuda", &g.versions.cuda},
                                                      {"rocm", &g.versions.rocm},
                                                      {"torch", &g.versions.torch}};
  for (const auto& line : text::lines(slurp(k_golden_dir / (name + ".case")))) {
    if (line.empty() || line.starts_with("#")) continue;
    auto colon = line.find(": ");
    REQUIRE_MESSAGE(colon != std::string::npos, name << ".case: not \"key: value\": " << line);
    std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "fix" || key == "migrate") {
      g.kind = key;
      g.what = value;
    } else if (auto it = fields.find(key); it != fields.end()) {
      *it->second = value;
    } else {
      FAIL(name << ".case: unknown key " << key);
    }
  }
  REQUIRE_MESSAGE((!g.snapshot.empty() && !g.kind.empty()),
                  name << ".case needs snapshot and fix or migrate");
  return g;
}

void check_golden(const std::string& name) {
  const Golden g = read_descriptor(name);
  std::string machine = fs::path(g.snapshot).parent_path().filename().string();
  CHECK_MESSAGE(name == machine + "--" + (g.kind == "fix" ? "" : "migrate-to-") + g.what,
                "a golden is named <machine>--<fix id> or <machine>--migrate-to-<vendor>");
  auto m = open_machine(g.snapshot);
  fix::PlanOptions opt;
  opt.versions = g.versions;
  auto ctx = m->context(opt);
  auto plan = g.kind == "fix" ? fix::plan_fix(g.what, ctx) : fix::plan_migration(g.what, ctx);
  REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
  CHECK(!plan->steps.empty());
  std::string script = fix::render_script(*plan, k_library_marker, "(test)").text;
  // The marker stands exactly where the library goes (the script's id, a hash of its text, differs).
  const std::string& library = recipes().library;
  std::string real = fix::render_script(*plan, library, "(test)").text;
  auto at = script.find(k_library_marker);
  REQUIRE(at != std::string::npos);
  CHECK(real.size() == script.size() - std::string(k_library_marker).size() + library.size());
  CHECK(real.compare(at, library.size(), library) == 0);
  fs::path file = k_golden_dir / (name + ".sh");
  if (std::getenv("GPUDOCTOR_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(file, std::ios::binary) << script;
    return;
  }
  REQUIRE_MESSAGE(fs::exists(file), "no golden file: run with GPUDOCTOR_UPDATE_GOLDEN=1 and review it");
  CHECK_MESSAGE(slurp(file) == script, "the script differs from "
                                           << file.filename().string()
                                           << " (GPUDOCTOR_UPDATE_GOLDEN=1 rewrites it)");
}

} // namespace

#define GPUDOCTOR_FIX_GOLDEN(name)                                                                           \
  TEST_CASE("fix golden: " name) {                                                                           \
    check_golden(name);                                                                                      \
  }
#include "fix_golden_cases.inc"
#undef GPUDOCTOR_FIX_GOLDEN

TEST_CASE("fix golden: every descriptor has its case and every script its descriptor") {
  std::vector<std::string> cases = {
#define GPUDOCTOR_FIX_GOLDEN(name) name,
#include "fix_golden_cases.inc"
#undef GPUDOCTOR_FIX_GOLDEN
  };
  std::vector<std::string> descriptors, scripts;
  for (const auto& entry : fs::directory_iterator(k_golden_dir)) {
    auto stem = entry.path().stem().string();
    if (entry.path().extension() == ".case") descriptors.push_back(stem);
    if (entry.path().extension() == ".sh") scripts.push_back(stem);
  }
  std::sort(cases.begin(), cases.end());
  std::sort(descriptors.begin(), descriptors.end());
  std::sort(scripts.begin(), scripts.end());
  CHECK(cases.size() >= 20);
  CHECK_MESSAGE(cases == descriptors, "the generated list is not the .case files: re-run cmake");
  CHECK_MESSAGE(scripts == descriptors, "a golden script without its .case (or the other way round)");
}

TEST_CASE("fix golden: a plan is the same from a snapshot folder, run after run") {
  auto a = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  auto b = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  auto pa = fix::plan_migration("nvidia", a->context());
  auto pb = fix::plan_migration("nvidia", b->context());
  REQUIRE(pa.has_value());
  REQUIRE(pb.has_value());
  CHECK(fix::render_script(*pa, recipes().library, "x").text ==
        fix::render_script(*pb, recipes().library, "x").text);
}

TEST_CASE("fix plans: the steps carry their flags and the purge names exactly the installed packages") {
  auto m = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  auto plan = fix::plan_migration("nvidia", m->context());
  REQUIRE(plan.has_value());
  CHECK(plan->needs_root());
  CHECK(plan->needs_reboot());
  REQUIRE(!plan->steps.empty());
  // Sources and holds are looked at first, then everything is downloaded, then the new driver comes in with
  // its module built and checked for both kernels, and only then does anything of the old stack go.
  auto at = [&](const std::string& id) {
    return std::find_if(plan->steps.begin(), plan->steps.end(),
                        [&](const fix::PlannedStep& s) { return s.id == id; });
  };
  REQUIRE(at("purge-rocm.packages") != plan->steps.end());
  REQUIRE(at("install-nvidia.module") != plan->steps.end());
  CHECK(plan->steps.front().stage == "prepare");
  CHECK(at("purge-rocm.holds") < at("prepare.download"));
  CHECK(at("prepare.download") < at("install-nvidia.headers"));
  CHECK(at("prepare.download")->stage == "prepare");
  CHECK(at("install-nvidia.keyring") < at("prepare.download"));
  CHECK(at("install-nvidia.headers") < at("install-nvidia.driver"));
  CHECK(at("install-nvidia.driver") < at("install-nvidia.module"));
  CHECK(text::trim(at("install-nvidia.module")->body) == "gd_build_module nvidia yes");
  CHECK(text::trim(at("install-nvidia.headers")->body) == "gd_install_kernel_packages linux-headers-");
  for (const char* incoming : {"install-nvidia.driver", "install-nvidia.module", "install-nvidia.toolkit",
                               "blacklist-nouveau.modprobe"})
    CHECK_MESSAGE(at(incoming) < at("purge-rocm.gpu-users"), incoming << " comes after the purge began");
  CHECK(std::any_of(plan->notes.begin(), plan->notes.end(), [](const std::string& n) {
    return n.starts_with("install before remove: the NVIDIA driver");
  }));
  CHECK(at("purge-rocm.packages")->destructive);
  CHECK(text::trim(at("purge-rocm.packages")->body) ==
        "gd_purge_packages hip-runtime-amd rocm-core rocminfo --");
  CHECK(at("purge-rocm.autoremove") > at("install-nvidia.toolkit"));
  CHECK(at("purge-rocm.autoremove") < at("reboot.reboot"));
  CHECK(plan->steps.back().id == "migrate.check");
  bool torch = false;
  for (const auto& s : plan->steps) {
    if (s.id == "torch-reinstall.reinstall") {
      torch = true;
      CHECK(!s.root);
      CHECK(s.body.find(
                "https://download.pytorch.org/whl/cu130 cu130 torch /home/sam/venvs/sd-rocm/bin/python3 "
                "-- pytorch-triton-rocm") != std::string::npos);
    }
    if (s.body.starts_with("gd_purge_packages") || s.body.starts_with("gd_install_packages"))
      CHECK(s.body.find('*') == std::string::npos); // never a glob handed to the package manager
  }
  CHECK(torch);
  // The mirror replaces the vendors' hosts: the vendor's own repository is only named to be disabled.
  fix::PlanOptions opt;
  opt.mirror = "file:///srv/mirror/";
  auto mirrored = fix::plan_migration("nvidia", m->context(opt));
  REQUIRE(mirrored.has_value());
  std::string all;
  for (const auto& s : mirrored->steps)
    all += s.body + "\n";
  CHECK(all.find("file:///srv/mirror/compute/cuda/repos/ubuntu2204/x86_64/ /") != std::string::npos);
  CHECK(all.find("file:///srv/mirror/whl/cu130") != std::string::npos);
  CHECK(all.find("gd_disable_sources developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64\n") !=
        std::string::npos);
  CHECK(all.find("https://developer.download.nvidia.com") == std::string::npos);
  CHECK(all.find("gd_cuda_keyring") == std::string::npos);
  auto direct = fix::plan_migration("nvidia", m->context());
  REQUIRE(direct.has_value());
  std::string direct_all;
  for (const auto& s : direct->steps)
    direct_all += s.body + "\n";
  CHECK(direct_all.find(
            "gd_cuda_keyring https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/") !=
        std::string::npos);
  CHECK(fix::mirror_url("https://repo.radeon.com/rocm/apt/7.2", "http://m.lan/x/") ==
        "http://m.lan/x/rocm/apt/7.2");
  CHECK(fix::mirror_url("https://repo.radeon.com/rocm/apt/7.2", "") ==
        "https://repo.radeon.com/rocm/apt/7.2");
}

TEST_CASE("fix plans: --to amd installs ROCm and checks amdgpu for both kernels before NVIDIA goes") {
  auto m = open_machine("tests/machines/nvidia-rtx3090-healthy/snapshot");
  auto plan = fix::plan_migration("amd", m->context());
  REQUIRE(plan.has_value());
  auto at = [&](const std::string& id) {
    return std::find_if(plan->steps.begin(), plan->steps.end(),
                        [&](const fix::PlannedStep& s) { return s.id == id; });
  };
  REQUIRE(at("install-rocm.module") != plan->steps.end());
  REQUIRE(at("purge-nvidia.packages") != plan->steps.end());
  CHECK(text::trim(at("install-rocm.module")->body) == "gd_build_module amdgpu yes");
  CHECK(at("install-rocm.driver") < at("install-rocm.module"));
  CHECK(at("install-rocm.rocm") < at("purge-nvidia.gpu-users"));
  CHECK(at("install-rocm.module") < at("purge-nvidia.packages"));
}

TEST_CASE("fix plans: held packages of the stack a plan installs are named") {
  auto m = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  m->inventory.nvidia.held = {"nvidia-kernel-common-580"};
  auto plan = fix::plan_migration("nvidia", m->context());
  REQUIRE(plan.has_value());
  CHECK(std::any_of(plan->notes.begin(), plan->notes.end(), [](const std::string& n) {
    return n.starts_with(
        "held with apt-mark hold: nvidia-kernel-common-580, of the stack this plan installs");
  }));
}

TEST_CASE("fix plans: the admin's apt pins that apply to what the plan installs are named") {
  auto m = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  m->inventory.apt_pins = {{"/etc/apt/preferences.d/no-nvidia", "nvidia-* libnvidia-*", "release *", "-1"},
                           {"/etc/apt/preferences.d/rocm-pin-600", "*", "release o=repo.radeon.com", "600"},
                           {"/etc/apt/preferences.d/cuda", "/^cuda-toolkit-13/", "version 13.0.1*", "1001"},
                           {"/etc/apt/preferences.d/other", "firefox-esr", "release a=stable", "900"},
                           {"/etc/apt/preferences.d/tail", "/-open-580$/", "version 580.65*", "990"},
                           {"/etc/apt/preferences.d/head", "/^open-580/", "version 580.65*", "990"}};
  auto plan = fix::plan_migration("nvidia", m->context());
  REQUIRE(plan.has_value());
  auto says = [&](const std::string& what) {
    return std::any_of(plan->notes.begin(), plan->notes.end(),
                       [&](const std::string& n) { return text::contains(n, what); });
  };
  CHECK(says("an admin's apt pin in /etc/apt/preferences.d/no-nvidia (Package: nvidia-* libnvidia-*; Pin: "
             "release *; Pin-Priority: -1) applies to nvidia-open-580"));
  CHECK(says("an admin's apt pin in /etc/apt/preferences.d/cuda (Package: /^cuda-toolkit-13/; Pin: version "
             "13.0.1*; Pin-Priority: 1001) applies to cuda-toolkit-13-0"));
  CHECK_FALSE(says("rocm-pin-600")); // a positive "*" pin touches nothing in particular
  CHECK_FALSE(says("firefox-esr"));
  CHECK(says("an admin's apt pin in /etc/apt/preferences.d/tail (Package: /-open-580$/; Pin: version "
             "580.65*; Pin-Priority: 990) applies to nvidia-open-580"));
  CHECK_FALSE(says("preferences.d/head")); // anchored at the start: nvidia-open-580 does not begin so
}

TEST_CASE("fix scripts: the preamble follows the header, before set -e; prepare steps carry the flag") {
  auto m = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  auto plan = fix::plan_migration("nvidia", m->context());
  REQUIRE(plan.has_value());
  std::string text = fix::render_script(*plan, recipes().library, "x").text;
  auto lines = text::split(text, '\n', true);
  std::size_t first_code = 0;
  while (first_code < lines.size() && (lines[first_code].empty() || lines[first_code][0] == '#'))
    ++first_code;
  REQUIRE(first_code < lines.size());
  CHECK(lines[first_code] == "IFS=$' \\t\\n'");
  auto pos = [&](const std::string& s) { return text.find(s); };
  CHECK(pos("export PATH=$gd_path\n") < pos("set -euo pipefail\n"));
  CHECK(pos("gd_folders=(/usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin)") <
        pos("set -euo pipefail\n"));
  CHECK(pos("unset -v \"${!LD_@}\" \"${!PYTHON@}\"") < pos("set -euo pipefail\n"));
  CHECK(pos("BASH_ENV ENV APT_CONFIG") != std::string::npos);
  // The step flags: the prepare stage's steps (and the download) say so, the others do not.
  auto flags_at = pos("GD_STEP_FLAGS=(");
  auto flags = text.substr(flags_at, text.find("\n)\n", flags_at) - flags_at);
  auto flag_lines = text::split(flags, '\n', true);
  std::size_t prepared = 0;
  for (std::size_t i = 0; i < plan->steps.size(); ++i) {
    bool prepare = plan->steps[i].stage == "prepare";
    prepared += prepare;
    CHECK_MESSAGE(text::contains(flag_lines.at(i + 1), "prepare") == prepare, plan->steps[i].id);
  }
  CHECK(prepared >= 2);
}

TEST_CASE("fix plans: fixes the results point to, and refusals") {
  auto m = open_machine("tests/machines/amd-to-nvidia-leftovers/snapshot");
  auto fixes = fix::applicable_fixes(recipes(), m->report.results);
  std::vector<std::string> ids;
  for (const auto& f : fixes)
    ids.push_back(f.fix);
  CHECK(std::find(ids.begin(), ids.end(), "purge-rocm") != ids.end());
  CHECK(std::find(ids.begin(), ids.end(), "torch-reinstall") != ids.end());
  auto volta = open_machine("tests/fixes/machines/rhel9-v100-cuda/snapshot");
  fix::PlanOptions opt;
  opt.versions.cuda = "13.0";
  auto refused = fix::plan_migration("nvidia", volta->context(opt));
  REQUIRE(!refused.has_value());
  CHECK(refused.error().find("sm_70") != std::string::npos);
  CHECK(!fix::plan_fix("repo-fix-codename", volta->context()).has_value()); // apt only: no RHEL steps
  CHECK(!fix::plan_fix("no-such-fix", volta->context()).has_value());
}
