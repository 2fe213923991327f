// Package relations for the purge set: dpkg records (Depends, Pre-Depends, Provides, holds), apt's automatic
// marks, dnf's version locks, rpm's provides and requires (tests/data/parse).
#include "parse/parsers_system.hpp"
#include "test_parse_util.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_CASE("parse: dpkg records keep Provides, alternatives and the hold") {
  auto records = parse::dpkg_records(test::slurp(test::data_path("parse") / "dpkg-status-provides-hold.txt"));
  REQUIRE(records.size() == 3);
  const auto& nv = records[0];
  CHECK(nv.name == "libnvidia-compute-560");
  CHECK(nv.installed());
  CHECK(nv.held());
  CHECK(nv.provides == std::vector<std::string>{"libcuda-5.0-1", "libcuda.so.1", "libnvidia-ml.so.1"});
  // Pre-Depends first is not promised; every clause is, with its alternatives, versions and :arch dropped.
  CHECK(nv.clauses.size() == 3);
  CHECK(std::find(nv.clauses.begin(), nv.clauses.end(),
                  std::vector<std::string>{"libnvidia-compute-560-common", "libnvidia-compute-common"}) !=
        nv.clauses.end());
  CHECK_FALSE(records[1].installed()); // config-files only
  CHECK(records[1].want == "deinstall");
  CHECK(records[2].clauses == std::vector<std::vector<std::string>>{{"libamdhip64-5"}, {"libc6"}});
}

TEST_CASE("parse: apt's automatic marks, dnf's version locks, rpm's relations") {
  auto autos = parse::apt_auto_installed(test::slurp(test::data_path("parse") / "apt-extended-states.txt"));
  CHECK(autos == std::vector<std::string>{"hipblas", "libhsa-runtime64-1"});
  auto locks = parse::dnf_versionlock(test::slurp(test::data_path("parse") / "dnf-versionlock.list"));
  REQUIRE(locks.size() == 4);
  CHECK(parse::versionlock_name(locks[0]) == "nvidia-driver");
  CHECK(parse::versionlock_name(locks[1]) == "nvidia-driver-cuda-libs");
  CHECK(parse::versionlock_name(locks[2]) == "kmod-nvidia-open-dkms");
  CHECK(parse::versionlock_name(locks[3]).empty()); // an exclusion locks nothing
  auto rel = parse::rpm_relations(test::slurp(test::data_path("parse") / "rpm-provides.txt"));
  REQUIRE(rel.size() == 2);
  CHECK(rel["rocm-core"].provides == std::vector<std::string>{"rocm-core", "rocm-core(x86-64)"});
  CHECK(rel["hip-runtime-amd"].requires_ ==
        std::vector<std::string>{"rocm-core", "libc.so.6(GLIBC_2.34)(64bit)"});
}

TEST_CASE("parse: apt-cache policy, the hosts of the installed version only") {
  using Hosts = std::vector<std::string>;
  auto real =
      parse::apt_policy_sources(test::slurp(test::data_path("parse") / "apt-cache-policy-debian12.txt"));
  CHECK(real["dnf"] == Hosts{"deb.debian.org"});
  CHECK(real["cmake"] == Hosts{"deb.debian.org"});
  // Installed at a version only dpkg's status has: the archive's newer version above it is not its source.
  CHECK(real["appstream"].empty());
  CHECK(real["base-files"].empty());
  // The installed version above an older one, a multi-arch name, https with a port, and garbage around.
  auto made =
      parse::apt_policy_sources("libc6:amd64:\n  Installed: 2.0\n  Version table:\n"
                                " *** 2.0 500\n        500 https://Developer.Download.NVIDIA.com:443/"
                                "compute/cuda/repos/debian12/x86_64  Packages\n"
                                "        100 /var/lib/dpkg/status\n     1.0 500\n"
                                "        500 http://deb.debian.org/debian bookworm/main amd64 Packages\n"
                                "garbage line without colon\n   *** orphaned 1\n");
  CHECK(made["libc6"] == Hosts{"developer.download.nvidia.com"});
  CHECK(made.size() == 1);
}
