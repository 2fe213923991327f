// Secure Boot's signing keys, one table (checks/knowledge/secure_boot.yaml): where each distribution's dkms
// (and akmods) signs, by the builder's version and the distribution as dkms names it; the check names that
// key, and the enroll-mok step of a plan makes and enrolls that one.
#include "check_fixtures.hpp"
#include "fix_fixtures.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

std::string signing_key_of(const std::string& builder, const std::string& version, const std::string& id,
                           const std::vector<std::string>& id_like = {}) {
  const ModuleSigningRow* row = kb().module_signing_for(builder, version, id, id_like);
  if (!row) return "(no row)";
  return row->made_by == "none" ? "(unsigned)" : row->certificate;
}

DkmsModule signing_dkms_entry() {
  return {"nvidia", "550.120", "6.8.0-45-generic", "x86_64", "installed", ""};
}

} // namespace

TEST_CASE("module signing: dkms signs where its version and the distribution say") {
  // Ubuntu's dkms from 3.0.7 signs with update-secureboot-policy's MOK; so do systems whose ID_LIKE starts
  // with ubuntu (Linux Mint, Pop!_OS), as dkms's distro_version() reads it.
  CHECK(signing_key_of("dkms", "3.0.11-1ubuntu13", "ubuntu") == "/var/lib/shim-signed/mok/MOK.der");
  CHECK(signing_key_of("dkms", "3.0.11-1ubuntu13", "linuxmint", {"ubuntu", "debian"}) ==
        "/var/lib/shim-signed/mok/MOK.der");
  // Debian (12's 3.0.10, 13's 3.2.2), RHEL's EPEL dkms: dkms's own pair.
  CHECK(signing_key_of("dkms", "3.0.10-8+deb12u1", "debian") == "/var/lib/dkms/mok.pub");
  CHECK(signing_key_of("dkms", "3.2.2-1~deb13u1", "debian") == "/var/lib/dkms/mok.pub");
  CHECK(signing_key_of("dkms", "3.1.4-1.el9", "rocky", {"rhel", "centos", "fedora"}) ==
        "/var/lib/dkms/mok.pub");
  // 3.0.4 to 3.0.6 had no Ubuntu case; before 3.0.4 only Ubuntu's kmodsign path signed.
  CHECK(signing_key_of("dkms", "3.0.5-1", "ubuntu") == "/var/lib/dkms/mok.pub");
  CHECK(signing_key_of("dkms", "2.8.7-2ubuntu2", "ubuntu") == "/var/lib/shim-signed/mok/MOK.der");
  CHECK(signing_key_of("dkms", "2.8.4-3", "debian") == "(unsigned)");
  // An epoch is not the version; no dkms yet (the install brings the distribution's newest): the newest rows.
  CHECK(signing_key_of("dkms", "1:3.0.5-1", "debian") == "/var/lib/dkms/mok.pub");
  CHECK(signing_key_of("dkms", "", "ubuntu") == "/var/lib/shim-signed/mok/MOK.der");
  CHECK(signing_key_of("dkms", "", "debian") == "/var/lib/dkms/mok.pub");
  CHECK(signing_key_of("akmods", "", "fedora") == "/etc/pki/akmods/certs/public_key.der");
  CHECK(Knowledge::dkms_distribution("ubuntu", {"debian"}) == "ubuntu");
  CHECK(Knowledge::dkms_distribution("debian", {}) == "debian");
}

TEST_CASE("module signing: the check names the key of this machine's dkms") {
  Facts f = nvidia_machine(1, "");
  f.boot.secure_boot = {"enabled", "cmd mokutil-sb-state"};
  f.boot.dkms_ran = true;
  f.boot.dkms = {signing_dkms_entry()};
  f.packages.readable = true;
  f.packages.source = "/var/lib/dpkg/status";
  SUBCASE("Ubuntu 24.04's dkms") {
    f.os.id = {"ubuntu", "file /etc/os-release"};
    f.packages.installed["dkms"] = "3.0.11-1ubuntu13";
    auto r = single(run_check("driver.secure-boot", f));
    expect_fired(r, Status::error, "nvidia",
                 {"dkms 3.0.11-1ubuntu13 signs with /var/lib/shim-signed/mok/MOK.priv",
                  "enroll /var/lib/shim-signed/mok/MOK.der with mokutil --import"},
                 {"enroll-mok"});
    CHECK_FALSE(text::contains(r.message, "/var/lib/dkms/mok.pub"));
  }
  SUBCASE("Debian 13's dkms") {
    f.os.id = {"debian", "file /etc/os-release"};
    f.packages.installed["dkms"] = "3.2.2-1~deb13u1";
    expect_fired(single(run_check("driver.secure-boot", f)), Status::error, "nvidia",
                 {"enroll /var/lib/dkms/mok.pub with mokutil --import"}, {"enroll-mok"});
  }
  SUBCASE("Fedora's akmods") {
    f.os.id = {"fedora", "file /etc/os-release"};
    f.packages.source = "rpm -qa";
    f.packages.installed["akmod-nvidia"] = "3:560.35.03-1.fc40";
    f.packages.installed["akmods"] = "0.5.8-8.fc40";
    expect_fired(single(run_check("driver.secure-boot", f)), Status::error, "nvidia",
                 {"akmods 0.5.8-8.fc40 signs with /etc/pki/akmods/private/private_key.priv",
                  "enroll /etc/pki/akmods/certs/public_key.der"},
                 {"enroll-mok"});
  }
  SUBCASE("a dkms that signs nothing says so") {
    f.os.id = {"debian", "file /etc/os-release"};
    f.packages.installed["dkms"] = "2.8.4-3";
    expect_fired(single(run_check("driver.secure-boot", f)), Status::error, "nvidia",
                 {"dkms 2.8.4-3 signs no modules here", "framework.conf"}, {"enroll-mok"});
  }
}

TEST_CASE("module signing: enroll-mok on Ubuntu makes and enrolls update-secureboot-policy's key") {
  // Before the table the script looked for Ubuntu's MOK only where it existed already, and on a machine
  // without it made /var/lib/dkms/mok.key, which Ubuntu's dkms does not sign with: the module stayed refused.
  auto m = open_machine("tests/machines/nvidia-ubuntu2404-distribution-driver-secure-boot/snapshot");
  auto plan = fix::plan_fix("install-nvidia", m->context());
  REQUIRE_MESSAGE(plan.has_value(), (plan ? "" : plan.error()));
  const fix::PlannedStep* key = plan_step(*plan, "enroll-mok.key");
  REQUIRE(key != nullptr);
  CHECK(text::contains(key->body,
                       "gd_mok_key /var/lib/shim-signed/mok/MOK.priv /var/lib/shim-signed/mok/MOK.der "
                       "update-secureboot-policy"));
  const fix::PlannedStep* import = plan_step(*plan, "enroll-mok.import");
  REQUIRE(import != nullptr);
  CHECK(text::contains(import->body,
                       "gd_mok_import /var/lib/shim-signed/mok/MOK.priv /var/lib/shim-signed/mok/MOK.der"));
}
