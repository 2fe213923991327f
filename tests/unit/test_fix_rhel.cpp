// The RHEL family's plans per release: EPEL and the builder repository (CRB, PowerTools, RHEL's CodeReady
// Builder), the nvidia-driver module stream only where dnf has module streams (RHEL 8 and 9), Fedora with
// NVIDIA's Fedora repository and without EPEL, ROCm on Fedora refused with the reason. The dnf steps
// themselves are run by tests/root/rhel_installroot.sh.
#include "fix/journal.hpp"
#include "fix_fixtures.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// A machine of tests/fixes (the Rocky 9 ROCm one unless named), relabelled as another release of the family.
std::unique_ptr<SnapshotMachine> machine_as(const std::string& id, const std::string& version,
                                            std::vector<std::string> like,
                                            const std::string& machine = "rocky9-mi210-rocm") {
  auto m = open_machine("tests/fixes/machines/" + machine + "/snapshot");
  auto& os = m->report.facts.os;
  os.id = {id, "test"};
  os.version_id = {version, "test"};
  os.pretty_name = {id + " " + version, "test"};
  os.id_like = std::move(like);
  return m;
}

struct Release {
  const char* id;
  const char* version;
  std::vector<std::string> like;
  const char* crb;    // the repository gd_enable_dnf_repo enables ("" when no epel step)
  const char* epel;   // what gd_install_epel installs
  const char* stream; // the nvidia-driver stream ("" when no stream step)
  const char* repo;   // NVIDIA's repository folder
};

} // namespace

TEST_CASE("fix rhel: EPEL, the builder repository and the driver stream follow the release") {
  const Release releases[] = {
      {"rocky", "9.4", {"rhel", "centos", "fedora"}, "crb", "epel-release", "580-open", "rhel9"},
      {"almalinux", "8.10", {"rhel", "centos", "fedora"}, "powertools", "epel-release", "580-open", "rhel8"},
      {"rhel",
       "9.4",
       {"fedora"},
       "codeready-builder-for-rhel-9-x86_64-rpms",
       "https://dl.fedoraproject.org/pub/epel/epel-release-latest-9.noarch.rpm",
       "580-open",
       "rhel9"},
      {"rocky", "10.0", {"rhel", "centos", "fedora"}, "crb", "epel-release", "", "rhel10"},
      {"fedora", "41", {}, "", "", "", "fedora41"},
  };
  for (const auto& r : releases) {
    CAPTURE(r.id);
    CAPTURE(r.version);
    auto m = machine_as(r.id, r.version, r.like);
    auto plan = fix::plan_migration("nvidia", m->context());
    REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
    const auto* epel = plan_step(*plan, "install-nvidia.epel");
    if (std::string(r.crb).empty()) {
      CHECK(epel == nullptr);
    } else {
      REQUIRE(epel != nullptr);
      CHECK(text::contains(epel->body, std::string("gd_enable_dnf_repo ") + r.crb + "\n"));
      CHECK(text::contains(epel->body, r.epel));
      CHECK(epel->stage == "prepare");
    }
    const auto* stream = plan_step(*plan, "install-nvidia.driver-stream");
    if (std::string(r.stream).empty()) {
      CHECK(stream == nullptr);
    } else {
      REQUIRE(stream != nullptr);
      CHECK(text::contains(stream->body, std::string("gd_switch_module_stream nvidia-driver ") + r.stream));
      // Before the download: with another stream enabled, modular filtering hides the driver to download.
      CHECK(stream < plan_step(*plan, "prepare.download"));
    }
    const auto* repo = plan_step(*plan, "install-nvidia.rhel-repository");
    REQUIRE(repo != nullptr);
    CHECK(text::contains(repo->body, std::string("/compute/cuda/repos/") + r.repo + "/x86_64/"));
    const auto* driver = plan_step(*plan, "install-nvidia.driver");
    REQUIRE(driver != nullptr);
    // No NVIDIA package on this AMD machine: nothing the driver's switch may remove.
    CHECK(text::trim(driver->body) == fmt::format("gd_switch_driver {} -- nvidia-open --",
                                                  std::string(r.stream).empty() ? "''" : r.stream));
    CHECK(!driver->destructive);
  }
}

TEST_CASE("fix rhel: NVIDIA's installed driver is switched as NVIDIA's guide does, naming what may go") {
  // rhel9-v100-cuda has NVIDIA's 535 proprietary driver (kmod-nvidia-latest-dkms); the V100 keeps the
  // proprietary flavour, the branch moves to 580. Relabelled as Fedora 41 there are no streams.
  struct Case {
    const char* id;
    const char* version;
    std::vector<std::string> like;
    const char* command;
  };
  const Case cases[] = {
      {"rhel", "9.4", {"fedora"}, "dnf module switch-to nvidia-driver:580-dkms --allowerasing"},
      {"fedora", "41", {}, "dnf install --allowerasing cuda-drivers"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.id);
    auto m = machine_as(c.id, c.version, c.like, "rhel9-v100-cuda");
    auto plan = fix::plan_fix("install-nvidia", m->context());
    REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
    const auto* driver = plan_step(*plan, "install-nvidia.driver");
    REQUIRE(driver != nullptr);
    CHECK(driver->destructive);
    auto body = text::trim(driver->body);
    REQUIRE(text::starts_with(body, "gd_switch_driver "));
    // What may go is the NVIDIA packages rpm has, the kmod of the old driver among them; dkms is not.
    auto erasable = body.substr(body.rfind(" -- ") + 4);
    CHECK(text::contains(" " + erasable + " ", " kmod-nvidia-latest-dkms "));
    CHECK(text::contains(" " + erasable + " ", " cuda-drivers-535 "));
    CHECK(!text::contains(" " + erasable + " ", " dkms "));
    CHECK(std::any_of(plan->notes.begin(), plan->notes.end(),
                      [&](const std::string& n) { return text::contains(n, c.command); }));
  }
}

TEST_CASE("fix rhel: ROCm on Fedora is refused with the reason, on Rocky it gets EPEL and CRB") {
  auto fedora = machine_as("fedora", "41", {});
  auto plan = fix::plan_fix("install-rocm", fedora->context());
  REQUIRE(!plan.has_value());
  CHECK(text::contains(plan.error(), "AMD publishes no ROCm repository for Fedora"));
  CHECK(text::contains(plan.error(), "Fedora's repositories"));

  auto rocky = machine_as("rocky", "8.10", {"rhel", "centos", "fedora"});
  fix::PlanOptions opt;
  opt.versions.rocm = "6.2";
  auto rocm = fix::plan_fix("install-rocm", rocky->context(opt));
  REQUIRE_MESSAGE(rocm.has_value(), (rocm ? std::string() : rocm.error()));
  const auto* epel = plan_step(*rocm, "install-rocm.epel");
  REQUIRE(epel != nullptr);
  CHECK(text::contains(epel->body, "gd_enable_dnf_repo powertools\n"));
  CHECK(text::contains(epel->body, "gd_install_epel epel-release"));
}

TEST_CASE("fix rhel: ROCm 7 on EL gets AMD's graphics repository of the EL minor release, or a refusal") {
  // ROCm 7's packages need AMD's graphics repository; AMD publishes one tree per EL minor release
  // (graphics/<rocm>/el/<VERSION_ID>/main/x86_64/). Before, the RHEL plan wrote none and dnf could not
  // install.
  auto rocky = machine_as("rocky", "9.6", {"rhel", "centos", "fedora"});
  auto plan = fix::plan_fix("install-rocm", rocky->context());
  REQUIRE_MESSAGE(plan.has_value(), (plan ? std::string() : plan.error()));
  const auto* graphics = plan_step(*plan, "install-rocm.graphics-repository");
  REQUIRE(graphics != nullptr);
  CHECK(text::contains(graphics->body, "[amdgraphics]\n"));
  CHECK(text::contains(graphics->body, "baseurl=https://repo.radeon.com/graphics/7.2/el/9.6/main/x86_64/\n"));
  CHECK(text::contains(graphics->verify, "/etc/yum.repos.d/amdgraphics.repo"));
  const auto* repos = plan_step(*plan, "install-rocm.repositories");
  REQUIRE(repos != nullptr);
  CHECK(text::contains(repos->body, "baseurl=https://repo.radeon.com/rocm/el9/7.2/main\n"));

  // Rocky 9.5: ROCm 7.2 lists "rocky 9", but AMD publishes no graphics tree for EL 9.5: refused, saying why.
  auto old = machine_as("rocky", "9.5", {"rhel", "centos", "fedora"});
  auto refused = fix::plan_fix("install-rocm", old->context());
  REQUIRE(!refused.has_value());
  CHECK(
      text::contains(refused.error(), "graphics repository (which its packages need) for EL 8.10, 9.4, 9.6"));
  CHECK(text::contains(refused.error(), "(EL 9.5)"));
}

TEST_CASE("fix rhel: a driver switch's journal names what its transaction brings, before it runs") {
  // What gd_switch_driver writes before dnf runs: the new names, and the new versions of the upgraded ones.
  std::string journal =
      "t\tr1\tinstall-nvidia.driver\tpurge-package\tnvidia-driver\t3:570.172.08-1.el9\n"
      "t\tr1\tinstall-nvidia.driver\treplaced-by-install\tnvidia-driver\n"
      "t\tr1\tinstall-nvidia.driver\tinstall-planned\tkmod-nvidia-open-dkms\n"
      "t\tr1\tinstall-nvidia.driver\tinstall-planned-version\tnvidia-driver\t3:580.95.05-1.el9\n"
      "t\tr1\tinstall-nvidia.driver\tinstall-planned-version\tnvidia-driver\t3:580.95.05-1.el9\n"
      "t\tr1\tinstall-nvidia.driver\tinstall-planned-version\ttruncated\n";
  auto fx = fix::run_effects(fix::parse_journal(journal), "r1");
  CHECK(fx.replaced);
  CHECK(fx.installed == std::vector<std::string>{"kmod-nvidia-open-dkms"});
  CHECK(fx.planned_versions == std::vector<std::string>{"nvidia-driver-3:580.95.05-1.el9"});
  CHECK(fix::changed_anything(fx));
}
