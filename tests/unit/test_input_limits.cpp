// The bounded inputs (system/input_limits.hpp): shell profiles and dpkg's status past their bounds are left
// out, with why, live and in a snapshot alike, and the checks that need them skip; a bundle says what it left
// out (manifest left_out) and its replay says the same.
#include "check_fixtures.hpp"
#include "collect/collectors.hpp"
#include "system/input_limits.hpp"
#include "system/replay_view.hpp"
#include "system/shell_profiles.hpp"
#include "testutil.hpp"

#include <fmt/format.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// A MemView that records what a collector leaves out and answers left_out as a replay of a bundle does.
class LeavingView : public MemView {
public:
  std::map<std::string, std::string> left;     // leave_out calls
  std::map<std::string, std::string> recorded; // what left_out answers
  void leave_out(const std::string& path, const std::string& why) override { left[path] = why; }
  std::optional<std::string> left_out(const std::string& path) override {
    auto it = recorded.find(path);
    if (it == recorded.end()) return std::nullopt;
    return it->second;
  }
};

std::string exports(std::size_t bytes) {
  std::string line = "export CUDA_HOME=/usr/local/cuda-12.4\n", out;
  while (out.size() + line.size() <= bytes)
    out += line;
  return out;
}

std::string dpkg_status(std::size_t packages) {
  std::string out;
  for (std::size_t i = 0; i < packages; ++i)
    out += fmt::format("Package: p{}\nStatus: install ok installed\nVersion: 1.0-{}\n\n", i, i);
  return out;
}

} // namespace

TEST_CASE("input limits: a shell profile over its bound is left out with why, and the others are read") {
  LeavingView v;
  v.who.home = "/home/ada";
  v.files["/etc/profile.d/big.sh"] = exports(k_max_profile_bytes + 100);
  v.files["/etc/profile.d/cuda.sh"] = exports(200);
  v.files["/home/ada/.bashrc"] = exports(100);
  ShellProfiles p = read_shell_profiles(v, user_home(v));
  std::vector<std::string> read;
  for (const auto& f : p.files)
    read.push_back(f.path);
  CHECK(read == std::vector<std::string>{"/home/ada/.bashrc", "/etc/profile.d/cuda.sh"});
  REQUIRE(p.not_read.size() == 1);
  CHECK(p.not_read[0] ==
        fmt::format("/etc/profile.d/big.sh holds {} bytes, more than the 1 MiB gpudoctor reads of "
                    "a shell profile",
                    v.files["/etc/profile.d/big.sh"].size()));
  CHECK(v.left.count("/etc/profile.d/big.sh") == 1);
}

TEST_CASE(
    "input limits: the profiles together stop at their bound; more .sh files than the bound are not named") {
  LeavingView v;
  for (int i = 0; i < 9; ++i)
    v.files[fmt::format("/etc/profile.d/{}.sh", i)] = exports(k_max_profile_bytes);
  ShellProfiles p = read_shell_profiles(v, "");
  CHECK(p.files.size() == 8);
  REQUIRE(p.not_read.size() == 1);
  CHECK(p.not_read[0].starts_with("/etc/profile.d/8.sh: the shell profiles read before it hold"));

  LeavingView many;
  for (std::size_t i = 0; i < k_max_profile_files + 6; ++i)
    many.files[fmt::format("/etc/profile.d/{:05}.sh", i)] = "X=1\n";
  std::size_t listed = 0;
  auto paths = shell_profile_paths(many, "", &listed);
  CHECK(listed == k_max_profile_files + 6);
  // Besides the folder's: the table's other system profiles (/etc/profile, /etc/bash.bashrc, zsh's eight,
  // /etc/environment), each named whether or not it exists.
  CHECK(paths.size() == k_max_profile_files + 11);
  ShellProfiles pm = read_shell_profiles(many, "");
  REQUIRE(pm.not_read.size() == 1);
  CHECK(pm.not_read[0] == fmt::format("/etc/profile.d lists {} .sh files: only the first {} are read",
                                      k_max_profile_files + 6, k_max_profile_files));
  CHECK(many.left.count("/etc/profile.d") == 1);
}

TEST_CASE("input limits: what the recorded run left out is said again and not read") {
  LeavingView v;
  v.files["/etc/profile.d/big.sh"] = "";
  v.recorded["/etc/profile.d/big.sh"] = "/etc/profile.d/big.sh holds 64 MiB, more than the 1 MiB";
  ShellProfiles p = read_shell_profiles(v, "");
  CHECK(p.files.empty());
  CHECK(p.not_read == std::vector<std::string>{"/etc/profile.d/big.sh holds 64 MiB, more than the 1 MiB"});
  CHECK(std::count(v.reads.begin(), v.reads.end(), "/etc/profile.d/big.sh") == 0);

  LeavingView replay;
  replay.recorded["/var/lib/dpkg/status"] = "/var/lib/dpkg/status lists 60000 packages";
  PackageFacts packages;
  collect_packages(replay, packages);
  CHECK_FALSE(packages.readable);
  CHECK(packages.over_limit == "/var/lib/dpkg/status lists 60000 packages");
}

TEST_CASE("input limits: dpkg's status past the package bound is not parsed, and left out") {
  CHECK(dpkg_package_count("Package: a\nVersion: 1\n\nPackage: b\n") == 2);
  CHECK(dpkg_package_count("Description: x\n Package: not a field\n") == 0);
  LeavingView v;
  v.files["/var/lib/dpkg/status"] = dpkg_status(k_max_packages);
  PackageFacts within;
  collect_packages(v, within);
  CHECK(within.readable);
  CHECK(within.installed.size() == k_max_packages);
  CHECK(v.left.empty());

  v.files["/var/lib/dpkg/status"] = dpkg_status(k_max_packages + 1);
  PackageFacts over;
  collect_packages(v, over);
  CHECK_FALSE(over.readable);
  CHECK(over.installed.empty());
  CHECK(over.over_limit ==
        fmt::format("/var/lib/dpkg/status lists {} packages, more than the {} gpudoctor reads",
                    k_max_packages + 1, k_max_packages));
  CHECK(v.left.at("/var/lib/dpkg/status") == over.over_limit);
}

TEST_CASE("input limits: a check that needs a left-out input skips saying why; the others judge") {
  Facts f = nvidia_machine(8);
  f.packages.readable = false;
  f.packages.manager = "dpkg";
  f.packages.over_limit = "/var/lib/dpkg/status lists 60000 packages, more than the 50000 gpudoctor reads";
  auto fabric = run_check("fabric.manager", f);
  REQUIRE(fabric.size() == 1);
  CHECK(fabric[0].status == Status::skip);
  CHECK(fabric[0].message.starts_with(f.packages.over_limit));
  auto leftover = run_check("stack.leftover-paths", f);
  for (const auto& r : leftover)
    CHECK(r.message.find("not judged") == std::string::npos);

  f.stack_paths.not_read = {"/etc/profile.d/big.sh holds 64 MiB, more than the 1 MiB"};
  leftover = run_check("stack.leftover-paths", f);
  REQUIRE(leftover.size() == 1);
  CHECK(leftover[0].status == Status::skip);
  CHECK(leftover[0].message.starts_with("/etc/profile.d/big.sh holds 64 MiB"));
}

TEST_CASE("input limits: a snapshot past a bound is judged as its machine would be, the input left out") {
  TempDir d;
  write_text(d / "manifest.json", R"({"format": "gpudoctor-snapshot", "version": 1})");
  write_text(d / "fs/etc/profile.d/cuda.sh", exports(1000));
  write_text(d / "fs/etc/profile.d/rocm.sh", exports(500));
  std::filesystem::resize_file(d / "fs/etc/profile.d/cuda.sh", k_max_profile_bytes + 1); // sparse: not read
  write_text(d / "fs/var/lib/dpkg/status", dpkg_status(k_max_packages + 1));
  auto view = ReplayView::open(d.path());
  REQUIRE(view.has_value());

  ShellProfiles p = read_shell_profiles(**view, "");
  REQUIRE(p.files.size() == 1);
  CHECK(p.files[0].path == "/etc/profile.d/rocm.sh");
  CHECK(p.not_read == std::vector<std::string>{"/etc/profile.d/cuda.sh holds 1048577 bytes, more than the 1 "
                                               "MiB gpudoctor reads of a shell profile"});
  PackageFacts packages;
  collect_packages(**view, packages);
  CHECK_FALSE(packages.readable);
  CHECK(packages.installed.empty());
  CHECK(packages.over_limit == fmt::format("/var/lib/dpkg/status lists {} packages, more than the {} "
                                           "gpudoctor reads",
                                           k_max_packages + 1, k_max_packages));
}

TEST_CASE("input limits: the manifest's left_out reads back, and only as absolute paths to reasons") {
  snapshot::Manifest m;
  m.left_out["/etc/profile.d/big.sh"] = "holds 64 MiB";
  auto back = snapshot::read_manifest(dump_json(snapshot::manifest_to_json(m)));
  REQUIRE(back.ok());
  CHECK(back.value.left_out == m.left_out);
  for (const char* bad :
       {R"("left_out": ["x"])", R"("left_out": {"relative": "why"})", R"("left_out": {"/etc/x": 3})"}) {
    CAPTURE(bad);
    auto r =
        snapshot::read_manifest(fmt::format(R"({{"format": "gpudoctor-snapshot", "version": 1, {}}})", bad));
    CHECK_FALSE(r.ok());
    CHECK(r.error.find("left_out") != std::string::npos);
  }
}
