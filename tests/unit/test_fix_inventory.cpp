// The fix inventory: what of each vendor's stack a machine has, read from its files. Hostile or huge files
// must not crash it (every `fix` and `migrate` takes the inventory first).
#include "check_fixtures.hpp"
#include "fix_fixtures.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

TEST_CASE("fix inventory: a 1 MB line in every file it reads is judged, not a crash") {
  const std::string huge(1 << 20, 'a');
  MemView view;
  // Each file the inventory parses line by line, with one enormous line beside a real one.
  view.files["/etc/apt/sources.list.d/rocm.list"] = "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                                                    "https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n"
                                                    "deb [signed-by=/" +
                                                    huge + "] https://repo.radeon.com/x jammy main\n";
  view.files["/etc/apt/sources.list.d/cuda.sources"] =
      "Types: deb\nURIs: https://developer.download.nvidia.com/x\n"
      "Signed-By: /" +
      huge + "\n";
  view.files["/etc/apt/keyrings/rocm.gpg"] = "key";
  view.files["/etc/ld.so.conf.d/rocm.conf"] = "/opt/rocm/lib" + huge + "\n/opt/rocm/lib\n";
  view.files["/etc/ld.so.conf.d/other.conf"] = std::string(1 << 20, ' ') + "x\n";
  // Profiles are read within 1 MiB each (system/input_limits.hpp): two quarter-MiB lines.
  const std::string quarter(1 << 18, 'a');
  view.files["/etc/profile.d/big.sh"] =
      "export " + quarter + "=1\nexport ROCM_PATH=/opt/rocm\n" + quarter + "\n";
  view.files["/etc/environment"] = std::string((1 << 20) - 2, ' ') + "=\n";
  view.files["/etc/profile.d/over.sh"] = "export CUDA_HOME=/usr/local/cuda\n" + huge;
  Facts facts;
  auto inv = take_inventory(view, facts, kb(), stacks());
  CHECK(has(inv.amd.sources, "/etc/apt/sources.list.d/rocm.list"));
  CHECK(has(inv.amd.keyrings, "/etc/apt/keyrings/rocm.gpg"));
  CHECK(has(inv.amd.ld_conf, "/etc/ld.so.conf.d/rocm.conf"));
  CHECK_FALSE(has(inv.amd.ld_conf, "/etc/ld.so.conf.d/other.conf"));
  bool rocm_path = std::any_of(inv.system_assignments.begin(), inv.system_assignments.end(),
                               [](const ProfileAssignment& a) { return a.name == "ROCM_PATH"; });
  CHECK(rocm_path);
  // Past its bound a profile is not read, and the plan's notes say so.
  CHECK(std::none_of(inv.system_assignments.begin(), inv.system_assignments.end(),
                     [](const ProfileAssignment& a) { return a.name == "CUDA_HOME"; }));
  CHECK(std::any_of(inv.amd.notes.begin(), inv.amd.notes.end(), [](const std::string& n) {
    return n.starts_with("/etc/profile.d/over.sh holds 1048609 bytes, more than the 1 MiB") &&
           n.find("look at it by hand") != std::string::npos;
  }));
}

TEST_CASE("fix inventory: ld.so.conf.d files naming the stack's folders, and only those") {
  MemView view;
  view.files["/etc/ld.so.conf.d/a.conf"] = "# ROCm\n  /opt/rocm-6.2.4/lib  \n";
  view.files["/etc/ld.so.conf.d/b.conf"] = "/opt/rocmx/lib\n";
  view.files["/etc/ld.so.conf.d/c.conf"] = "/opt/rocm/lib /usr/lib\n";
  view.files["/etc/ld.so.conf.d/d.conf"] = "$ROCM_PATH/lib\n";
  view.files["/etc/ld.so.conf.d/e.conf"] = "/usr/local/cuda-12.4/lib64\n";
  Facts facts;
  auto inv = take_inventory(view, facts, kb(), stacks());
  CHECK(inv.amd.ld_conf == std::vector<std::string>{"/etc/ld.so.conf.d/a.conf", "/etc/ld.so.conf.d/d.conf"});
  CHECK(inv.nvidia.ld_conf == std::vector<std::string>{"/etc/ld.so.conf.d/e.conf"});
}
