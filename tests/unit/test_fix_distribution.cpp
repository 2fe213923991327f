// The distributions' own builds of a vendor's stack (Ubuntu's nvidia-driver-550, Debian's rocminfo): told by
// dpkg's Maintainer and Version, never by name (the vendors' repositories reuse the names), and replaced by
// the install of the vendor's stack in its own step, what a package outside the stack needs kept.
#include "check_fixtures.hpp"
#include "fix/journal.hpp"
#include "fix_fixtures.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

bool listed(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool plan_note_with(const fix::Plan& plan, std::initializer_list<const char*> parts) {
  return std::any_of(plan.notes.begin(), plan.notes.end(), [&](const std::string& n) {
    return std::all_of(parts.begin(), parts.end(), [&](const char* p) { return text::contains(n, p); });
  });
}

std::string status_record(const std::string& name, const std::string& version, const std::string& maintainer,
                          const std::string& depends = "") {
  return "Package: " + name + "\nStatus: install ok installed\nMaintainer: " + maintainer +
         "\nVersion: " + version + "\n" + (depends.empty() ? "" : "Depends: " + depends + "\n") + "\n";
}

} // namespace

TEST_CASE("package origin: by Maintainer and Version, first row wins, never by name") {
  const Stacks& s = stacks();
  CHECK(s.package_origin("Ubuntu Core Developers <ubuntu-devel-discuss@lists.ubuntu.com>",
                         "550.163.01-0ubuntu0.24.04.1") == "distribution");
  // Ubuntu's stable-release update form decides even where the Maintainer says nothing.
  CHECK(s.package_origin("", "525.147.05-0ubuntu0.22.04.1") == "distribution");
  CHECK(s.package_origin("Debian ROCm Team <debian-ai@lists.debian.org>", "6.1.2-2") == "distribution");
  CHECK(s.package_origin("Debian NVIDIA Maintainers <pkg-nvidia-devel@lists.alioth.debian.org>",
                         "550.163.01-2") == "distribution");
  CHECK(s.package_origin("cudatools <cudatools@nvidia.com>", "550.54.15-0ubuntu1") == "nvidia");
  CHECK(s.package_origin("NVIDIA <CUDATOOLS@nvidia.com>", "13.0.88-1") == "nvidia");
  CHECK(s.package_origin("ROCm Dev Support <rocm-dev.support@amd.com>", "1.0.0.70200-43~22.04") == "amd");
  // NVIDIA's networking (DOCA, Mellanox) and AMD's CPU compilers are no part of a GPU stack.
  CHECK(s.package_origin("NVIDIA <networking-support@nvidia.com>", "24.10-1").empty());
  CHECK(s.package_origin("Someone <someone@example.org>", "1.0").empty());
  CHECK(s.package_origin("", "").empty());
}

TEST_CASE("fix inventory: NVIDIA's packages no glob names are the stack's by their Maintainer") {
  MemView view;
  view.files["/var/lib/dpkg/status"] =
      status_record("libnvfatbin-13-0", "13.0.85-1", "cudatools <cudatools@nvidia.com>") +
      status_record("libnvptxcompiler-13-0", "13.0.88-1", "cudatools <cudatools@nvidia.com>") +
      // A name of the same shape from someone else is not NVIDIA's (nvtop, a GPU monitor), nor NVIDIA's
      // networking.
      status_record("libnvtop-data", "1.0", "Someone <someone@example.org>") +
      status_record("doca-ofed", "24.10-1", "NVIDIA <networking-support@nvidia.com>");
  Facts facts;
  facts.packages.manager = "dpkg";
  auto inv = take_inventory(view, facts, kb(), stacks());
  CHECK(listed(inv.nvidia.packages, "libnvfatbin-13-0"));
  CHECK(listed(inv.nvidia.packages, "libnvptxcompiler-13-0"));
  CHECK_FALSE(listed(inv.nvidia.packages, "libnvtop-data"));
  CHECK_FALSE(listed(inv.nvidia.packages, "doca-ofed"));
  CHECK(inv.nvidia.distribution.empty());
}

TEST_CASE("fix inventory: the same name is the distribution's or the vendor's by who built it") {
  MemView view;
  view.files["/var/lib/dpkg/status"] =
      status_record("nvidia-driver-550", "550.163.01-0ubuntu0.24.04.1",
                    "Ubuntu Core Developers <ubuntu-devel-discuss@lists.ubuntu.com>") +
      status_record("rocminfo", "1.0.0.70200-43~22.04", "ROCm Dev Support <rocm-dev.support@amd.com>");
  Facts facts;
  facts.packages.manager = "dpkg";
  auto inv = take_inventory(view, facts, kb(), stacks());
  CHECK(inv.nvidia.distribution == std::vector<std::string>{"nvidia-driver-550"});
  CHECK(inv.amd.distribution.empty()); // AMD's own rocminfo: nothing of the distribution's to replace
  CHECK(listed(inv.amd.packages, "rocminfo"));
}

TEST_CASE("fix inventory: where apt has the installed version from names its origin before its Maintainer") {
  // A Debian package of the stack kept by one person, not a team: its Maintainer names no origin, so before
  // the live apt origin it counted as the vendor's (by its glob) and was never replaced. Built by NVIDIA
  // with a Debian team's Maintainer, a package from NVIDIA's repository is NVIDIA's.
  MemView view;
  view.files["/var/lib/dpkg/status"] =
      status_record("rocminfo", "6.1.2-2", "Jane Doe <jane@example.org>") +
      status_record("libnvidia-egl-wayland1", "1:1.1.13-1",
                    "Debian NVIDIA Maintainers <pkg-nvidia-devel@lists.alioth.debian.org>");
  std::string policy =
      "rocminfo:\n  Installed: 6.1.2-2\n  Candidate: 6.1.2-2\n  Version table:\n"
      " *** 6.1.2-2 500\n        500 http://deb.debian.org/debian trixie/main amd64 Packages\n"
      "        100 /var/lib/dpkg/status\n"
      "libnvidia-egl-wayland1:\n  Installed: 1:1.1.13-1\n  Candidate: 1:1.1.13-1\n"
      "  Version table:\n *** 1:1.1.13-1 600\n        600 "
      "https://developer.download.nvidia.com/compute/cuda/repos/debian13/x86_64  Packages\n"
      "        100 /var/lib/dpkg/status\n";
  view.command("apt-cache-policy", policy);
  Facts facts;
  facts.packages.manager = "dpkg";
  auto inv = take_inventory(view, facts, kb(), stacks());
  CHECK(inv.amd.distribution == std::vector<std::string>{"rocminfo"});
  CHECK(inv.nvidia.distribution.empty());
  CHECK(listed(inv.nvidia.packages, "libnvidia-egl-wayland1"));
  // Without apt's answer (an older snapshot), Maintainer and Version decide as before.
  view.commands.erase("apt-cache-policy");
  auto by_maintainer = take_inventory(view, facts, kb(), stacks());
  CHECK(by_maintainer.amd.distribution.empty());
  CHECK(by_maintainer.nvidia.distribution == std::vector<std::string>{"libnvidia-egl-wayland1"});
}

TEST_CASE("fix install-rocm on Debian 13 with Debian's ROCm: replaced in the rocm step, libucx0's HIP kept") {
  auto m = open_machine("tests/machines/amd-debian13-distribution-rocm/snapshot");
  const StackInventory& amd = m->inventory.amd;
  for (const char* name :
       {"rocminfo", "hipcc", "rocm-smi", "librocm-smi64-1", "libamdhip64-dev", "rocm-device-libs-17"})
    CHECK_MESSAGE(listed(amd.distribution, name), name);
  // OpenMPI's UCX needs Debian's HIP runtime: it stays, and so does what it needs.
  for (const char* name : {"libamdhip64-5", "libhsa-runtime64-1", "libhsakmt1", "libamd-comgr2"})
    CHECK_MESSAGE(!listed(amd.distribution, name), name);
  CHECK(std::any_of(amd.distribution_kept.begin(), amd.distribution_kept.end(),
                    [](const auto& k) { return k.first == "libamdhip64-5" && k.second == "libucx0"; }));

  auto plan = fix::plan_fix("install-rocm", m->context());
  REQUIRE_MESSAGE(plan.has_value(), (plan ? "" : plan.error()));
  const fix::PlannedStep* rocm = plan_step(*plan, "install-rocm.rocm");
  REQUIRE(rocm != nullptr);
  CHECK(text::contains(rocm->body, "gd_install_packages rocm -- hipcc=5.7.1-6+deb13u1 libamdhip64-dev="));
  CHECK(text::contains(rocm->body, "rocminfo=6.1.2-2"));
  CHECK(rocm->destructive);
  CHECK(text::contains(rocm->verify, "gd_verify_builds_gone hipcc=5.7.1-6+deb13u1"));
  CHECK(plan_note_with(
      *plan, {"Debian GNU/Linux 13", "own builds installed here (hipcc", "AMD's ROCm 7.2", "never mixed"}));
  CHECK(plan_note_with(*plan, {"kept: ", "libamdhip64-5", "which libucx0 needs"}));
  // The downloads come first: the rocm install is resolved as the purge leaves the machine.
  CHECK(plan_step(*plan, "prepare.download") != nullptr);
}

TEST_CASE("fix install-nvidia over Ubuntu's own driver 550 under Secure Boot names and replaces it") {
  auto m = open_machine("tests/machines/nvidia-ubuntu2404-distribution-driver-secure-boot/snapshot");
  const StackInventory& nv = m->inventory.nvidia;
  for (const char* name : {"nvidia-driver-550", "libnvidia-compute-550", "linux-modules-nvidia-550-generic",
                           "linux-modules-nvidia-550-6.8.0-49-generic",
                           "linux-signatures-nvidia-6.8.0-49-generic", "nvidia-firmware-550-550.163.01"})
    CHECK_MESSAGE(listed(nv.distribution, name), name);
  CHECK_FALSE(listed(nv.distribution, "mokutil"));

  auto plan = fix::plan_fix("install-nvidia", m->context());
  REQUIRE_MESSAGE(plan.has_value(), (plan ? "" : plan.error()));
  const fix::PlannedStep* driver = plan_step(*plan, "install-nvidia.driver");
  REQUIRE(driver != nullptr);
  CHECK(text::contains(driver->body,
                       " -- libnvidia-common-550=550.163.01-0ubuntu0.24.04.1 libnvidia-compute-550="));
  CHECK(text::contains(driver->body, "linux-signatures-nvidia-6.8.0-49-generic"));
  CHECK(driver->destructive);
  CHECK(plan_note_with(*plan, {"Ubuntu 24.04", "nvidia-driver-550", "NVIDIA's driver 580", "never mixed"}));
  // Under Secure Boot NVIDIA's DKMS module needs the key enrolled: the plan says so and enrolls it.
  CHECK(plan_note_with(*plan, {"Secure Boot is on", "Machine Owner Key"}));
}

TEST_CASE("fix install-nvidia on a machine without the distribution's driver keeps its driver step plain") {
  // NVIDIA's own driver packages (versions without Ubuntu's 0ubuntu0.<release>, no Ubuntu maintainer).
  auto m = open_machine("tests/machines/nvidia-a100-mig-no-instances/snapshot");
  CHECK(m->inventory.nvidia.distribution.empty());
  auto plan = fix::plan_fix("install-nvidia", m->context());
  REQUIRE_MESSAGE(plan.has_value(), (plan ? "" : plan.error()));
  const fix::PlannedStep* driver = plan_step(*plan, "install-nvidia.driver");
  REQUIRE(driver != nullptr);
  CHECK_FALSE(driver->destructive);
  CHECK_FALSE(plan_note_with(*plan, {"own builds installed here"}));
}

TEST_CASE("fix install-nvidia --gpu of a family: planned for it, the plan names the models it stands for") {
  auto m = open_machine("tests/machines/amd-debian13-distribution-rocm/snapshot");
  fix::PlanOptions opt;
  opt.incoming_gpu = "Tesla V100";
  auto plan = fix::plan_fix("install-nvidia", m->context(opt));
  REQUIRE_MESSAGE(plan.has_value(), (plan ? "" : plan.error()));
  CHECK(plan_note_with(*plan, {"--gpu \"Tesla V100\" names", "all sm_70", "the same for each"}));
  CHECK(plan_note_with(*plan, {"CUDA 12.6 (the release of PyTorch's cu126 wheels"}));
}

TEST_CASE(
    "fix journal: a purge for an install of the same stack tells undo to take the new packages out first") {
  std::string journal = "t\tr1\tinstall-rocm.rocm\treplaced-by-install\trocminfo\thipcc\n"
                        "t\tr1\tinstall-rocm.rocm\tpurge-package\trocminfo\t6.1.2-2\n"
                        "t\tr1\tinstall-rocm.rocm\tinstalled-package\trocm-core\t7.2.0\n";
  auto fx = fix::run_effects(fix::parse_journal(journal), "r1");
  CHECK(fx.replaced);
  REQUIRE(fx.purged.size() == 1);
  CHECK(fx.purged.front().first == "rocminfo");
  CHECK(fx.installed == std::vector<std::string>{"rocm-core"});
  // A migration's purge of the other vendor's stack is no replacement: the old stack comes back first.
  std::string migration = "t\tr1\tpurge-nvidia.packages\tpurge-package\tnvidia-driver-550\t550.1\n";
  CHECK_FALSE(fix::run_effects(fix::parse_journal(migration), "r1").replaced);
}
