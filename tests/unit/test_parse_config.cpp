// Packages, repositories, DKMS, Secure Boot, kernel command line, shell profiles and ld.so.conf.
#include "parse/parsers_system.hpp"
#include "unit/test_parse_util.hpp"

#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;
using gpudoctor::test::slurp;

namespace {
std::string parse_data(const std::string& name) {
  return slurp(test::data_path("parse/" + name));
}
} // namespace

TEST_CASE("parse: rpm -qa, gpudoctor's query format and plain NEVRA lines") {
  auto q = parse::rpm_qa("rocm-core 6.2.0.60200-66.el9\nkernel 5.14.0-427.13.1.el9_4\n"
                         "kernel 5.14.0-503.11.1.el9_5\nkernel 5.14.0-70.13.1.el9_0\n"
                         "gpg-pubkey 5a6340b3-6229229e\nbroken-line\n\n");
  REQUIRE(q.size() == 5);
  CHECK(q[0].name == "rocm-core");
  CHECK(q[0].version == "6.2.0.60200");
  CHECK(q[0].release == "66.el9");
  CHECK(q[0].arch.empty());
  CHECK(q[0].evr() == "6.2.0.60200-66.el9");
  auto versions = parse::rpm_qa_versions("kernel 5.14.0-427.13.1.el9_4\nkernel 5.14.0-503.11.1.el9_5\n"
                                         "kernel 5.14.0-70.13.1.el9_0\nrocm-core 6.2.0.60200-66.el9\n");
  CHECK(versions.size() == 2);
  CHECK(versions.at("kernel") == "5.14.0-503.11.1.el9_5"); // the highest release of one version
  CHECK(versions.at("rocm-core") == "6.2.0.60200-66.el9");

  auto n = parse::rpm_qa("nvidia-driver-cuda-libs-550.90.07-1.el9.x86_64\ncuda-toolkit-12-4-12.4.1-1.x86_64\n"
                         "amdgpu-dkms-6.8.5.60202-2041575.el9.noarch\ngpg-pubkey-d42d0685-62e9b6a2\n"
                         "kmod-nvidia-open-dkms-1:565.57.01-1.el9.x86_64\nnot a package\nfoo-bar-baz\n");
  REQUIRE(n.size() == 5);
  CHECK(n[0].name == "nvidia-driver-cuda-libs");
  CHECK(n[0].version == "550.90.07");
  CHECK(n[0].release == "1.el9");
  CHECK(n[0].arch == "x86_64");
  CHECK(n[1].name == "cuda-toolkit-12-4"); // names may end in numbers
  CHECK(n[1].version == "12.4.1");
  CHECK(n[2].name == "amdgpu-dkms");
  CHECK(n[2].arch == "noarch");
  CHECK(n[3].name == "gpg-pubkey");  // no arch
  CHECK(n[3].version == "d42d0685"); // a key id
  CHECK(n[4].epoch == "1");
  CHECK(n[4].evr() == "1:565.57.01-1.el9");
  CHECK(parse::rpm_qa("").empty());
}

TEST_CASE("parse: apt one-line sources, ROCm, CUDA and commented entries") {
  const char* list =
      "# ROCm\n"
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.2 jammy "
      "main\n"
      "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] "
      "https://repo.radeon.com/amdgpu/6.2.2/ubuntu "
      "jammy main proprietary # driver\n"
      "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
      "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /\n"
      "# deb http://archive.ubuntu.com/ubuntu focal main # disabled on upgrade to jammy\n"
      "#deb-src http://archive.ubuntu.com/ubuntu jammy main\n"
      "# just a comment, not an entry\n"
      "deb cdrom:[Ubuntu 22.04 LTS _Jammy Jellyfish_ - Release amd64 (20220419)]/ jammy main restricted\n"
      "deb [ trusted=yes ] file:/var/local/repo ./\n"
      "deb http://broken\n"
      "rpm http://not-apt suite main\n";
  auto e = parse::apt_sources_list(list, "/etc/apt/sources.list.d/rocm.list");
  REQUIRE(e.size() == 7);
  CHECK(e[0].file == "/etc/apt/sources.list.d/rocm.list");
  CHECK(e[0].line == 2);
  CHECK(e[0].type == "deb");
  CHECK(e[0].uri == "https://repo.radeon.com/rocm/apt/6.2.2");
  CHECK(e[0].suite == "jammy");
  CHECK(e[0].components == std::vector<std::string>{"main"});
  CHECK(e[0].options.at("arch") == "amd64");
  CHECK(e[0].options.at("signed-by") == "/etc/apt/keyrings/rocm.gpg");
  CHECK(e[0].enabled);
  CHECK_FALSE(e[0].deb822);
  CHECK(e[1].options.at("arch") == "amd64,i386");
  CHECK(e[1].components == std::vector<std::string>{"main", "proprietary"});
  CHECK(e[2].suite == "/");
  CHECK(e[2].components.empty());
  CHECK(e[3].line == 5);
  CHECK_FALSE(e[3].enabled);
  CHECK(e[3].suite == "focal");
  CHECK(e[3].components == std::vector<std::string>{"main"});
  CHECK(e[4].type == "deb-src");
  CHECK_FALSE(e[4].enabled);
  CHECK(e[5].uri == "cdrom:[Ubuntu 22.04 LTS _Jammy Jellyfish_ - Release amd64 (20220419)]/");
  CHECK(e[5].suite == "jammy");
  CHECK(e[6].options.at("trusted") == "yes");
  CHECK(e[6].suite == "./");
  CHECK(parse::apt_sources_list("", "x.list").empty());
}

TEST_CASE("parse: apt deb822 sources") {
  auto debian = parse::apt_sources(parse_data("apt-debian12-container-debian.sources"),
                                   "/etc/apt/sources.list.d/debian.sources");
  REQUIRE(debian.size() == 3); // bookworm and bookworm-updates from one stanza, then security
  CHECK(debian[0].deb822);
  CHECK(debian[0].line == 1);
  CHECK(debian[0].uri == "http://deb.debian.org/debian");
  CHECK(debian[0].suite == "bookworm");
  CHECK(debian[1].suite == "bookworm-updates");
  CHECK(debian[0].components == std::vector<std::string>{"main"});
  CHECK(debian[0].options.at("signed-by") == "/usr/share/keyrings/debian-archive-keyring.gpg");
  CHECK(debian[2].line == 8);
  CHECK(debian[2].uri == "http://deb.debian.org/debian-security");
  CHECK(debian[2].suite == "bookworm-security");

  const char* sources = "# ROCm, written by hand\n"
                        "Types: deb deb-src\n"
                        "URIs: https://repo.radeon.com/rocm/apt/7.0\n"
                        "Suites: noble\n"
                        "Components: main\n"
                        "Architectures: amd64\n"
                        "Signed-By:\n"
                        " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
                        " .\n"
                        " mQINBFq...\n"
                        " -----END PGP PUBLIC KEY BLOCK-----\n"
                        "\n\n"
                        "types: deb\n"
                        "uris: http://archive.ubuntu.com/ubuntu/ http://mirror.example/ubuntu/\n"
                        "suites: noble\n"
                        "components: main universe\n"
                        "Enabled: no\n"
                        "\n"
                        "Types: deb\n"
                        "Suites: noble\n";
  auto s = parse::apt_sources(sources, "rocm.sources");
  REQUIRE(s.size() == 4);
  CHECK(s[0].type == "deb");
  CHECK(s[1].type == "deb-src");
  CHECK(s[0].line == 2);
  CHECK(s[0].options.at("arch") == "amd64");
  CHECK(s[0].options.at("signed-by") == "-----BEGIN PGP PUBLIC KEY BLOCK-----");
  CHECK(s[0].enabled);
  CHECK(s[2].line == 14);
  CHECK(s[2].uri == "http://archive.ubuntu.com/ubuntu/");
  CHECK(s[3].uri == "http://mirror.example/ubuntu/");
  CHECK(s[3].components == std::vector<std::string>{"main", "universe"});
  CHECK_FALSE(s[3].enabled);
  // By content, when the name says nothing.
  CHECK(parse::apt_sources(sources, "/tmp/x").size() == 4);
  CHECK(parse::apt_sources("deb http://a b c\n", "/tmp/x").size() == 1);
}

TEST_CASE("parse: dnf/yum .repo files") {
  const char* repos =
      "[cuda-rhel9-x86_64]\n"
      "name=cuda-rhel9-x86_64\n"
      "baseurl=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64\n"
      "enabled=1\n"
      "gpgcheck=1\n"
      "gpgkey=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/D42D0685.pub\n"
      "\n"
      "; the ROCm repository\n"
      "[ROCm-6.2.2]\n"
      "name=ROCm6.2.2\n"
      "baseurl=https://repo.radeon.com/rocm/el9/6.2.2/main\n"
      "        https://mirror.example/rocm/el9/6.2.2/main\n"
      "enabled = 0\n"
      "priority=50\n"
      "gpgcheck=1\n"
      "gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key,file:///etc/pki/rpm-gpg/RPM-GPG-KEY-x\n"
      "\n"
      "[epel]\n"
      "name=Extra Packages for Enterprise Linux $releasever - $basearch\n"
      "metalink=https://mirrors.fedoraproject.org/metalink?repo=epel-$releasever&arch=$basearch\n"
      "enabled=True\n"
      "\n[broken\nbaseurl=x\n";
  auto r = parse::yum_repos(repos, "/etc/yum.repos.d/x.repo");
  REQUIRE(r.size() == 3);
  CHECK(r[0].id == "cuda-rhel9-x86_64");
  CHECK(r[0].line == 1);
  CHECK(r[0].file == "/etc/yum.repos.d/x.repo");
  CHECK(r[0].baseurls ==
        std::vector<std::string>{"https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64"});
  CHECK(r[0].enabled == true);
  CHECK(r[0].gpgcheck == true);
  CHECK(r[0].gpgkeys.size() == 1);
  CHECK(r[1].id == "ROCm-6.2.2");
  CHECK(r[1].line == 9);
  CHECK(r[1].baseurls.size() == 2);
  CHECK(r[1].baseurls[1] == "https://mirror.example/rocm/el9/6.2.2/main");
  CHECK(r[1].enabled == false);
  CHECK_FALSE(r[1].is_enabled());
  CHECK(r[1].values.at("priority") == "50");
  CHECK(r[1].gpgkeys.size() == 2);
  CHECK(r[2].name == "Extra Packages for Enterprise Linux $releasever - $basearch");
  CHECK(r[2].metalink == "https://mirrors.fedoraproject.org/metalink?repo=epel-$releasever&arch=$basearch");
  CHECK(r[2].baseurls.empty());
  CHECK(r[2].is_enabled());

  auto dnf_conf = parse::yum_repos("[main]\ngpgcheck=1\n", "/etc/dnf/dnf.conf");
  CHECK(dnf_conf.empty());
  CHECK(parse::yum_repos("[ ]\nbaseurl=http://x\n[\t]\n", "x.repo").empty()); // found by libFuzzer
  auto no_enabled = parse::yum_repos("[r]\nbaseurl=http://x\n", "r.repo");
  REQUIRE(no_enabled.size() == 1);
  CHECK_FALSE(no_enabled[0].enabled);
  CHECK(no_enabled[0].is_enabled());
}

TEST_CASE("parse: dkms status, 3.x slash format and 2.x comma format") {
  auto s = parse::dkms_status(realdata("dkms-status-amdgpu-1.txt"));
  REQUIRE(s.entries.size() == 2);
  CHECK(s.messages.empty());
  CHECK(s.entries[0].module == "amdgpu");
  CHECK(s.entries[0].version == "6.16.6-2255209.24.04");
  CHECK(s.entries[0].kernel == "6.17.0-5-generic");
  CHECK(s.entries[0].arch == "x86_64");
  CHECK(s.entries[0].state == "installed");
  CHECK(s.entries[0].detail == "(Original modules exist)");
  CHECK(s.entries[1].kernel == "6.17.0-8-generic");

  auto old = parse::dkms_status("amdgpu, 6.3.6-1697589.22.04, 5.15.0-91-generic, x86_64: installed\n"
                                "nvidia, 535.54.03: added\n"
                                "nvidia/550.54.14: added\n"
                                "nvidia/535.54.03, 6.2.0-26-generic, x86_64: built\n"
                                "nvidia/470.57.02, 5.14.0-70.el9.x86_64, x86_64: installed-weak from "
                                "5.14.0-70.13.1.el9_0.x86_64\n"
                                "Error! Could not locate dkms.conf file.\n"
                                "File: /var/lib/dkms/nvidia/470/source/dkms.conf does not exist.\n");
  REQUIRE(old.entries.size() == 5);
  CHECK(old.entries[0].module == "amdgpu");
  CHECK(old.entries[0].version == "6.3.6-1697589.22.04");
  CHECK(old.entries[0].kernel == "5.15.0-91-generic");
  CHECK(old.entries[0].state == "installed");
  CHECK(old.entries[0].detail.empty());
  CHECK(old.entries[1].state == "added");
  CHECK(old.entries[1].kernel.empty());
  CHECK(old.entries[2].version == "550.54.14");
  CHECK(old.entries[2].state == "added");
  CHECK(old.entries[3].state == "built");
  CHECK(old.entries[4].state == "installed-weak");
  CHECK(old.entries[4].detail == "from 5.14.0-70.13.1.el9_0.x86_64");
  REQUIRE(old.messages.size() == 2);
  CHECK(old.messages[0] == "Error! Could not locate dkms.conf file.");
  CHECK(parse::dkms_status("").entries.empty());
}

TEST_CASE("parse: mokutil --sb-state") {
  using S = parse::SecureBoot::State;
  CHECK(parse::mokutil_sb_state("SecureBoot enabled\n").state == S::enabled);
  CHECK(parse::mokutil_sb_state("SecureBoot disabled\n").state == S::disabled);
  auto setup = parse::mokutil_sb_state("SecureBoot disabled\nPlatform is in Setup Mode\n");
  CHECK(setup.state == S::disabled);
  CHECK(setup.setup_mode);
  auto shim = parse::mokutil_sb_state("SecureBoot enabled\nSecureBoot validation is disabled in shim\n");
  CHECK(shim.state == S::enabled);
  CHECK(shim.shim_validation_disabled);
  CHECK(shim.line == "SecureBoot enabled");
  CHECK(parse::mokutil_sb_state("This system doesn't support Secure Boot\n").state == S::unsupported);
  CHECK(parse::mokutil_sb_state("EFI variables are not supported on this system\n").state == S::no_efi);
  CHECK(parse::mokutil_sb_state("bash: mokutil: command not found\n").state == S::unknown);
  CHECK(parse::mokutil_sb_state("").state == S::unknown);
}

TEST_CASE("parse: kernel command line") {
  auto c = parse::kernel_cmdline(
      "BOOT_IMAGE=/vmlinuz-6.8.0-48-generic root=UUID=0b1c ro quiet splash iommu=pt amd_iommu=on "
      "modprobe.blacklist=nouveau,nvidiafb nouveau.modeset=0 module_blacklist=radeon "
      "acpi_osi=\"Windows 2020\" \"dyndbg=file drivers/gpu/* +p\" pci=noaer pcie-aspm=off -- single\n");
  CHECK(c.get("root") == "UUID=0b1c");
  CHECK(c.has("quiet"));
  CHECK(c.get("quiet") == "");
  CHECK_FALSE(c.params[3].value); // "quiet" is a bare flag
  CHECK(c.iommu_passthrough());
  CHECK(c.get("amd_iommu") == "on");
  CHECK_FALSE(c.has("intel_iommu"));
  CHECK(c.module_param("nouveau", "modeset") == "0");
  CHECK(c.blacklisted_modules() == std::vector<std::string>{"nouveau", "nvidiafb", "radeon"});
  CHECK(c.get("acpi_osi") == "Windows 2020");
  CHECK(c.get("dyndbg") == "file drivers/gpu/* +p");
  CHECK(c.get("pcie_aspm") == "off"); // '-' and '_' are the same in names
  CHECK(c.init_args == std::vector<std::string>{"single"});
  CHECK_FALSE(c.has("single"));

  auto last = parse::kernel_cmdline("iommu=off iommu=pt iommu.passthrough=0");
  CHECK(last.get("iommu") == "pt"); // the last one wins
  CHECK(last.all("iommu") == std::vector<std::string>{"off", "pt"});
  CHECK(last.iommu_passthrough());
  CHECK(parse::kernel_cmdline("iommu.passthrough=1").iommu_passthrough());
  CHECK_FALSE(parse::kernel_cmdline("intel_iommu=on").iommu_passthrough());
  CHECK(parse::kernel_cmdline("").params.empty());
  CHECK(parse::kernel_cmdline("a=\"unterminated b").get("a") == "unterminated b");

  if (std::filesystem::exists("/proc/cmdline")) CHECK_NOTHROW(parse::kernel_cmdline(slurp("/proc/cmdline")));
}

TEST_CASE("parse: shell profiles, the forms CUDA and ROCm instructions use") {
  const char* bashrc = "# ~/.bashrc\n"
                       "export PATH=/usr/local/cuda-12.4/bin${PATH:+:${PATH}}\n"
                       "export LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64\\\n"
                       "                         ${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\n"
                       "export PATH=$PATH:/opt/rocm/bin:/opt/rocm/opencl/bin\n"
                       "HSA_OVERRIDE_GFX_VERSION=10.3.0; export HSA_OVERRIDE_GFX_VERSION\n"
                       "PATH=\"$HOME/.local/bin:$PATH\"\n"
                       "[ -d /opt/rocm ] && ROCM_PATH='/opt/rocm'\n"
                       "CUDA_VISIBLE_DEVICES=0 python train.py   # one command only\n"
                       "declare -x PYTORCH_ROCM_ARCH=\"gfx1100\"\n"
                       "export MIOPEN_USER_DB_PATH=\"$(mktemp -d)/miopen db\" NCCL_DEBUG=INFO\n"
                       "LD_LIBRARY_PATH+=\":/opt/rocm/lib\"\n"
                       "PATH=/usr/bin:/bin   # replaces it\n"
                       "source /opt/intel/oneapi/setvars.sh\n"
                       ". \"$HOME/.cargo/env\"\n"
                       "alias ll='ls -l'\n"
                       "echo export FAKE=1\n";
  auto p = parse::shell_profile(bashrc, "/home/u/.bashrc");
  REQUIRE(p.assignments.size() == 11);
  const auto& a = p.assignments;

  CHECK(a[0].file == "/home/u/.bashrc");
  CHECK(a[0].line == 2);
  CHECK(a[0].name == "PATH");
  CHECK(a[0].value == "/usr/local/cuda-12.4/bin${PATH:+:${PATH}}");
  CHECK(a[0].exported);
  CHECK(a[0].keeps_old);
  CHECK(a[0].prepends == std::vector<std::string>{"/usr/local/cuda-12.4/bin"});
  CHECK(a[0].appends.empty());

  // The CUDA installation guide's two-line form: the backslash joins the lines, but the next line's blanks
  // end the word, so the old value is not part of the assignment, as in bash.
  CHECK(a[1].name == "LD_LIBRARY_PATH");
  CHECK(a[1].line == 3);
  CHECK(a[1].value == "/usr/local/cuda-12.4/lib64");
  CHECK_FALSE(a[1].keeps_old);

  CHECK(a[2].line == 5);
  CHECK(a[2].appends == std::vector<std::string>{"/opt/rocm/bin", "/opt/rocm/opencl/bin"});
  CHECK(a[2].prepends.empty());
  CHECK(a[2].path_entries() == std::vector<std::string>{"/opt/rocm/bin", "/opt/rocm/opencl/bin"});

  CHECK(a[3].name == "HSA_OVERRIDE_GFX_VERSION");
  CHECK(a[3].value == "10.3.0");
  CHECK(a[3].exported); // "; export NAME" on the same line
  CHECK(a[3].prepends.empty());

  CHECK(a[4].name == "PATH");
  CHECK(a[4].exported); // PATH is exported elsewhere in the file
  CHECK(a[4].prepends == std::vector<std::string>{"$HOME/.local/bin"});
  CHECK(a[4].keeps_old);

  CHECK(a[5].name == "ROCM_PATH");
  CHECK(a[5].value == "/opt/rocm");
  CHECK_FALSE(a[5].exported);
  CHECK(a[5].prepends == std::vector<std::string>{"/opt/rocm"});
  CHECK_FALSE(a[5].keeps_old);

  CHECK(a[6].name == "PYTORCH_ROCM_ARCH");
  CHECK(a[6].value == "gfx1100");
  CHECK(a[6].exported);

  CHECK(a[7].name == "MIOPEN_USER_DB_PATH");
  CHECK(a[7].value == "$(mktemp -d)/miopen db");
  CHECK(a[8].name == "NCCL_DEBUG");
  CHECK(a[8].exported);

  CHECK(a[9].name == "LD_LIBRARY_PATH");
  CHECK(a[9].keeps_old); // +=
  CHECK(a[9].appends == std::vector<std::string>{"/opt/rocm/lib"});

  CHECK(a[10].line == 13);
  CHECK_FALSE(a[10].keeps_old);
  CHECK(a[10].prepends == std::vector<std::string>{"/usr/bin", "/bin"});

  REQUIRE(p.sourced.size() == 2);
  CHECK(p.sourced[0].path == "/opt/intel/oneapi/setvars.sh");
  CHECK(p.sourced[0].line == 14);
  CHECK(p.sourced[1].path == "$HOME/.cargo/env");

  CHECK(parse::shell_profile("", "x").assignments.empty());
  CHECK(parse::shell_profile("export\nexport -n PATH=/x\nA='unterminated\n", "x").assignments.size() == 1);
}

TEST_CASE("parse: shell profiles as Debian 12 installs them") {
  auto etc = parse::shell_profile(parse_data("etc-profile-debian12-base-files.sh"), "/etc/profile");
  REQUIRE(etc.assignments.size() >= 2);
  CHECK(etc.assignments[0].name == "PATH");
  CHECK(etc.assignments[0].line == 5);
  CHECK(etc.assignments[0].exported); // by the "export PATH" after the if
  CHECK_FALSE(etc.assignments[0].keeps_old);
  CHECK(etc.assignments[0].prepends == std::vector<std::string>{"/usr/local/sbin", "/usr/local/bin",
                                                                "/usr/sbin", "/usr/bin", "/sbin", "/bin"});
  CHECK(etc.assignments[1].line == 7);
  CHECK(etc.assignments[1].prepends.back() == "/usr/games");
  bool ps1 = false;
  for (const auto& x : etc.assignments)
    ps1 = ps1 || (x.name == "PS1" && x.value == "# ");
  CHECK(ps1);
  REQUIRE(etc.sourced.size() == 2);
  CHECK(etc.sourced[0].path == "/etc/bash.bashrc");
  CHECK(etc.sourced[1].path == "$i");

  auto skel = parse::shell_profile(parse_data("etc-skel-profile-debian12-bash.sh"), "/home/u/.profile");
  REQUIRE(skel.assignments.size() == 2);
  CHECK(skel.assignments[0].prepends == std::vector<std::string>{"$HOME/bin"});
  CHECK(skel.assignments[1].prepends == std::vector<std::string>{"$HOME/.local/bin"});
  CHECK(skel.assignments[1].keeps_old);
  CHECK_FALSE(skel.assignments[1].exported); // PATH is exported by /etc/profile, not here
  REQUIRE(skel.sourced.size() == 1);
  CHECK(skel.sourced[0].path == "$HOME/.bashrc");

  auto bashrc = parse::shell_profile(parse_data("etc-skel-bashrc-debian12-bash.sh"), "/home/u/.bashrc");
  for (const auto& x : bashrc.assignments) {
    CAPTURE(x.name);
    CHECK(x.name != "GCC_COLORS"); // commented out
    CHECK(x.name != "PATH");
  }
  bool histsize = false;
  for (const auto& x : bashrc.assignments)
    histsize = histsize || (x.name == "HISTSIZE" && x.value == "1000");
  CHECK(histsize);
}

TEST_CASE("parse: /etc/environment") {
  auto e = parse::etc_environment(
      "PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/usr/local/cuda/bin\"\n"
      "# comment\n"
      "LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/rocm/lib\n"
      "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n",
      "/etc/environment");
  REQUIRE(e.assignments.size() == 3);
  CHECK(e.assignments[0].exported);
  CHECK(e.assignments[0].prepends.back() == "/usr/local/cuda/bin");
  // pam_env expands nothing here: "$LD_LIBRARY_PATH" is a literal entry.
  CHECK_FALSE(e.assignments[1].keeps_old);
  CHECK(e.assignments[1].prepends == std::vector<std::string>{"$LD_LIBRARY_PATH", "/opt/rocm/lib"});
  CHECK(e.assignments[2].name == "HSA_OVERRIDE_GFX_VERSION");
  CHECK(e.assignments[2].line == 4);
}

TEST_CASE("parse: ld.so.conf and ld.so.conf.d") {
  auto main = parse::ld_so_conf(parse_data("ld-so-conf-debian12-libc-bin.conf"), "/etc/ld.so.conf");
  CHECK(main.dirs.empty());
  REQUIRE(main.includes.size() == 1);
  CHECK(main.includes[0].path == "/etc/ld.so.conf.d/*.conf");
  CHECK(main.includes[0].line == 1);

  auto multi = parse::ld_so_conf(parse_data("ld-so-conf-d-x86_64-linux-gnu-debian12-libc6.conf"),
                                 "/etc/ld.so.conf.d/x86_64-linux-gnu.conf");
  REQUIRE(multi.dirs.size() == 3);
  CHECK(multi.dirs[0].path == "/usr/local/lib/x86_64-linux-gnu");
  CHECK(multi.dirs[0].line == 2);
  CHECK(multi.dirs[2].path == "/usr/lib/x86_64-linux-gnu");

  auto rocm = parse::ld_so_conf(
      "/opt/rocm/lib/   # ROCm\n/opt/rocm/lib64\ninclude a.conf b/*.conf\nhwcap 0 x\n", "x");
  CHECK(rocm.dirs.size() == 2);
  CHECK(rocm.dirs[0].path == "/opt/rocm/lib");
  CHECK(rocm.includes.size() == 2);
}
