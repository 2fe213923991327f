// The purge set on the installed dependency graph, over the package graphs of the root tests
// (tests/root/graphs: the real ROCm, amdgpu and CUDA graphs as dpkg status records).
#include "check_fixtures.hpp"
#include "collect/inventory.hpp"
#include "collect/pkg_graph.hpp"
#include "fix_fixtures.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// The paragraphs of graph files as dpkg status records, all installed, minus `skip`; `extra` is appended.
std::string status_of(const std::vector<std::string>& graphs, const std::set<std::string>& skip = {},
                      const std::string& extra = "") {
  std::string out;
  for (const auto& g : graphs) {
    auto text = read_whole_file(std::string(GPUDOCTOR_SOURCE_DIR) + "/tests/root/graphs/" + g).value_or("");
    std::string para;
    bool skipped = false;
    auto flush = [&] {
      if (!para.empty() && !skipped) out += para + "Status: install ok installed\n\n";
      para.clear();
      skipped = false;
    };
    for (const auto& line : text::split(text, '\n', true)) {
      if (line.empty()) {
        flush();
        continue;
      }
      // Not dpkg fields: what make_debs.sh puts in the package (files, module objects, maintainer scripts).
      if (line[0] == '#' || text::starts_with(line, "File:") || text::starts_with(line, "Module:") ||
          text::starts_with(line, "Postinst:") || text::starts_with(line, "Prerm:"))
        continue;
      if (text::starts_with(line, "Package: ") && skip.count(line.substr(9))) skipped = true;
      para += line + "\n";
    }
    flush();
  }
  return out + extra;
}

bool lists(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

Inventory inventory_of(const std::string& status, const std::string& extended = "") {
  MemView view;
  view.files["/var/lib/dpkg/status"] = status;
  if (!extended.empty()) view.files["/var/lib/apt/extended_states"] = extended;
  Facts facts;
  facts.packages.manager = "dpkg";
  facts.packages.readable = true;
  return take_inventory(view, facts, kb(), stacks());
}

const std::set<std::string> k_distribution_mesa = {
    "libgl1-mesa-dri",    "libglapi-mesa",         "libgbm1", "libegl-mesa0", "mesa-va-drivers",
    "mesa-vdpau-drivers", "linux-headers-@KERNEL@"};

} // namespace

TEST_CASE(
    "purge set: a full ROCm install, versioned forms included, purges in one step; libucx0 keeps its HIP") {
  auto inv = inventory_of(
      status_of({"rocm-6.2.4.txt", "rocm-6.1.0-versioned.txt", "amdgpu-6.2.4.txt", "debian-12.txt"},
                k_distribution_mesa));
  const auto& amd = inv.amd;
  // Every package of AMD's repositories goes: the meta packages, members no glob names (half, hipfort-dev,
  // rocwmma-dev, rocalution), the versioned forms, the driver and AMD's own Mesa and libdrm.
  for (const char* p : {"rocm",
                        "rocm-hip-sdk",
                        "rocm-core",
                        "hsa-rocr",
                        "half",
                        "hipfort",
                        "hipfort-dev",
                        "rocwmma-dev",
                        "rocalution",
                        "rocm-hip-sdk6.1.0",
                        "hipblas-dev6.1.0",
                        "hipfort-dev6.1.0",
                        "half6.1.0",
                        "rocm-core6.1.0",
                        "amdgpu-dkms",
                        "amdgpu-install",
                        "amdgpu-core",
                        "libdrm-amdgpu-amdgpu1",
                        "libgl1-amdgpu-mesa-dri",
                        "mesa-amdgpu-va-drivers",
                        "xserver-xorg-amdgpu-video-amdgpu",
                        "libllvm18.1.60204-amdgpu"}) {
    CAPTURE(p);
    CHECK(lists(amd.packages, p));
  }
  // Outside the stack: the distribution's packages, the kernel's DKMS, the desktop.
  for (const char* p :
       {"libucx0", "dkms", "libdrm-amdgpu1", "libdrm2", "xserver-xorg-video-amdgpu", "gpu-desktop-canary"}) {
    CAPTURE(p);
    CHECK_FALSE(lists(amd.packages, p));
  }
  // The distribution's HIP runtime is ROCm by name, but libucx0 needs it: kept with what it needs, and said.
  for (const char* p : {"libamdhip64-5", "libhsa-runtime64-1", "libhsakmt1"}) {
    CAPTURE(p);
    CHECK_FALSE(lists(amd.packages, p));
    CHECK(std::count(amd.kept.begin(), amd.kept.end(),
                     std::make_pair(std::string(p), std::string("libucx0"))) == 1);
  }
  // The desktop needs Mesa's DRI and VA drivers: the distribution's come in the same transaction.
  CHECK(lists(amd.replacements, "libgl1-mesa-dri"));
  CHECK(lists(amd.replacements, "mesa-va-drivers"));
  CHECK_FALSE(lists(amd.replacements, "libdrm-amdgpu1")); // installed already
  CHECK(inv.nvidia.packages.empty());
}

TEST_CASE("purge set: without the distribution's Mesa in the table, the desktop keeps AMD's") {
  // The same machine, but a desktop that can only use AMD's VA driver: AMD's stays, with what it needs.
  auto inv = inventory_of(status_of({"amdgpu-6.2.4.txt", "debian-12.txt"}, k_distribution_mesa,
                                    "Package: va-only-canary\nVersion: 1\nDepends: mesa-amdgpu-va-drivers\n"
                                    "Status: install ok installed\n\n"));
  CHECK_FALSE(lists(inv.amd.packages, "mesa-amdgpu-va-drivers"));
  CHECK_FALSE(lists(inv.amd.packages, "libdrm-amdgpu-amdgpu1"));
  CHECK(lists(inv.amd.packages, "amdgpu-dkms"));
  CHECK(std::count(inv.amd.kept.begin(), inv.amd.kept.end(),
                   std::make_pair(std::string("mesa-amdgpu-va-drivers"), std::string("va-only-canary"))) ==
        1);
}

TEST_CASE("purge set: CUDA and its driver go; a program needing libcuda.so.1 keeps the driver's library") {
  std::set<std::string> not_installed;
  auto all = status_of({"cuda-debian12.txt"});
  for (const auto& line : text::split(all, '\n'))
    if (text::starts_with(line, "Package: ") &&
        (text::contains(line, "13-0") || text::contains(line, "580") || text::contains(line, "13.0")))
      not_installed.insert(line.substr(9));
  auto base =
      status_of({"cuda-debian12.txt"}, not_installed) + status_of({"debian-12.txt"}, k_distribution_mesa);
  auto inv =
      inventory_of(base, "Package: dkms\nArchitecture: amd64\nAuto-Installed: 1\n\n"
                         "Package: cuda-toolkit-config-common\nArchitecture: all\nAuto-Installed: 1\n");
  for (const char* p : {"cuda", "cuda-toolkit-12-6", "libcublas-12-6", "nsight-compute-2024.3.2",
                        "gds-tools-12-6", "cuda-keyring", "nvidia-driver-560", "libnvidia-compute-560",
                        "nvidia-dkms-560", "nvidia-fabricmanager-560", "libcudnn9-cuda-12", "libnccl2"}) {
    CAPTURE(p);
    CHECK(lists(inv.nvidia.packages, p));
  }
  CHECK_FALSE(lists(inv.nvidia.packages, "dkms"));
  CHECK_FALSE(lists(inv.nvidia.orphans, "dkms")); // kept by every vendor's keep list, never autoremoved
  CHECK(inv.amd.packages.empty());
  auto with_user = inventory_of(
      base + "Package: nvenc-canary\nVersion: 1\nDepends: libcuda.so.1\nStatus: install ok installed\n\n");
  CHECK_FALSE(lists(with_user.nvidia.packages, "libnvidia-compute-560"));
  CHECK(lists(with_user.nvidia.packages, "nvidia-driver-560")); // the meta package goes, its library stays
  CHECK(std::count(with_user.nvidia.kept.begin(), with_user.nvidia.kept.end(),
                   std::make_pair(std::string("libnvidia-compute-560"), std::string("nvenc-canary"))) == 1);
}

TEST_CASE("purge set: held packages are listed; auto-installed packages only the stack needed are orphans") {
  std::string status = "Package: rocm-core\nStatus: hold ok installed\nVersion: 6.2.4\n\n"
                       "Package: hip-runtime-amd\nStatus: install ok installed\nVersion: 6.2.4\n"
                       "Depends: rocm-core, libfoo1\n\n"
                       "Package: libfoo1\nStatus: install ok installed\nVersion: 1\n\n"
                       "Package: libbar1\nStatus: install ok installed\nVersion: 1\n\n"
                       "Package: other\nStatus: install ok installed\nVersion: 1\nDepends: libbar1\n\n";
  auto inv =
      inventory_of(status, "Package: libfoo1\nAuto-Installed: 1\n\nPackage: libbar1\nAuto-Installed: 1\n");
  CHECK(inv.amd.packages == std::vector<std::string>{"hip-runtime-amd", "rocm-core"});
  CHECK(inv.amd.held == std::vector<std::string>{"rocm-core"});
  CHECK(inv.amd.orphans == std::vector<std::string>{"libfoo1"});
}

TEST_CASE("purge set: rpm provides and requires, and dnf version locks of the purged packages") {
  MemView view;
  CommandResult rel;
  rel.found = true;
  rel.exit_code = 0;
  rel.out = "rocm-core\tP\trocm-core\nhip-runtime-amd\tP\thip-runtime-amd\nhip-runtime-amd\tP\tlibamdhip64."
            "so.6()(64bit)\n"
            "hip-runtime-amd\tR\trocm-core\nhip-runtime-amd\tR\t/bin/"
            "sh\nhip-runtime-amd\tR\trpmlib(PayloadIsZstd)\n"
            "miopen-hip\tR\tlibamdhip64.so.6()(64bit)\nopenmpi\tR\tlibamdhip64.so.6()(64bit)\n";
  view.commands["rpm-provides"] = rel;
  view.files["/etc/dnf/plugins/versionlock.list"] =
      "# "
      "locks\nrocm-core-0:6.2.4.60204-139.el9.*\nkernel-0:5.14.0-427.el9.*\n!hip-runtime-amd-0:7.0-1.el9.*\n";
  Facts facts;
  facts.packages.manager = "rpm";
  facts.packages.installed = {{"rocm-core", "6.2.4-1"},
                              {"hip-runtime-amd", "6.2.4-1"},
                              {"miopen-hip", "3.2-1"},
                              {"openmpi", "4.1-1"}};
  auto inv = take_inventory(view, facts, kb(), stacks());
  // openmpi (outside the stack) needs HIP through a soname: HIP and rocm-core stay, miopen-hip goes.
  CHECK(inv.amd.packages == std::vector<std::string>{"miopen-hip"});
  CHECK(inv.amd.kept.size() == 2);
  facts.packages.installed.erase("openmpi");
  auto without = take_inventory(view, facts, kb(), stacks());
  CHECK(without.amd.packages == std::vector<std::string>{"hip-runtime-amd", "miopen-hip", "rocm-core"});
  CHECK(without.amd.versionlocks == std::vector<std::string>{"rocm-core-0:6.2.4.60204-139.el9.*"});
}
