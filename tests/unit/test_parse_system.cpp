#include "parse/parsers.hpp"
#include "parse/parsers_system.hpp"
#include "unit/test_parse_util.hpp"

#include <algorithm>
#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;
using gpudoctor::test::slurp;

TEST_CASE("parse: os-release, Ubuntu 24.04, Debian 12, RHEL 9, derivatives") {
  // Hand-written in the layout each distribution ships.
  auto u = parse::os_release("PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
                             "VERSION=\"24.04.1 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\n"
                             "ID_LIKE=debian\nUBUNTU_CODENAME=noble\nLOGO=ubuntu-logo\n");
  CHECK(u.id == "ubuntu");
  CHECK(u.version_id == "24.04");
  CHECK(u.codename == "noble");
  CHECK(u.pretty_name == "Ubuntu 24.04.1 LTS");
  CHECK(u.name == "Ubuntu");
  CHECK(u.id_like == std::vector<std::string>{"debian"});

  auto d = parse::os_release(
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
      "VERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n");
  CHECK(d.id == "debian");
  CHECK(d.version_id == "12");
  CHECK(d.codename == "bookworm");
  CHECK(d.id_like.empty());

  auto r = parse::os_release("NAME=\"Red Hat Enterprise Linux\"\nVERSION=\"9.4 (Plow)\"\nID=\"rhel\"\n"
                             "ID_LIKE=\"fedora\"\nVERSION_ID=\"9.4\"\nPLATFORM_ID=\"platform:el9\"\n"
                             "PRETTY_NAME=\"Red Hat Enterprise Linux 9.4 (Plow)\"\n# a comment\n");
  CHECK(r.id == "rhel");
  CHECK(r.version_id == "9.4");
  CHECK(r.codename.empty());
  CHECK(r.id_like == std::vector<std::string>{"fedora"});

  auto rocky = parse::os_release("ID=\"rocky\"\r\nID_LIKE=\"rhel centos fedora\"\r\nVERSION_ID=\"9.3\"\r\n");
  CHECK(rocky.id == "rocky");
  CHECK(rocky.id_like == std::vector<std::string>{"rhel", "centos", "fedora"});

  // Linux Mint names its own codename; an Ubuntu derivative without VERSION_CODENAME falls back.
  CHECK(parse::os_release("ID=linuxmint\nVERSION_CODENAME=virginia\nUBUNTU_CODENAME=jammy\n").codename ==
        "virginia");
  CHECK(parse::os_release("ID=neon\nUBUNTU_CODENAME=jammy\n").codename == "jammy");

  auto empty = parse::os_release("");
  CHECK(empty.id.empty());
  CHECK(empty.id_like.empty());
}

TEST_CASE("parse: os-release of this machine") {
  std::filesystem::path path = "/etc/os-release";
  if (!std::filesystem::exists(path)) path = "/usr/lib/os-release";
  if (!std::filesystem::exists(path)) return;
  auto os = parse::os_release(slurp(path));
  CHECK_FALSE(os.id.empty());
  CHECK_FALSE(os.pretty_name.empty());
}

TEST_CASE("parse: /proc/modules and lsmod") {
  auto m = parse::proc_modules("nvidia_uvm 4956160 0 - Live 0x0000000000000000 (POE)\n"
                               "nvidia 54308864 25 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n"
                               "amdgpu 20152320 0 - Live 0x0000000000000000 (OE)\n");
  CHECK(m.size() == 3);
  CHECK(m.count("nvidia_uvm") == 1);
  CHECK(m.count("nvidia") == 1);
  CHECK(m.at("amdgpu").empty());

  // lsmod's first column is the same; its "Used by" column (qxl here) names no loaded line of its own.
  auto l = parse::proc_modules(realdata("lsmod-amdgpu-dkms-1.txt"));
  CHECK(l.size() == 15);
  for (const char* name : {"amdgpu", "amdttm", "amdkcl", "amddrm_buddy", "amdxcp", "amd_sched", "video"})
    CHECK(l.count(name) == 1);
  CHECK(l.count("qxl") == 0);
  CHECK(parse::proc_modules("Module                  Size  Used by\n").empty());
  CHECK(parse::proc_modules("").empty());
  CHECK(parse::proc_modules("bad/name 1 0\n\xff\xfe 2 0\n").empty());

  if (std::filesystem::exists("/proc/modules")) CHECK_NOTHROW(parse::proc_modules(slurp("/proc/modules")));
}

TEST_CASE("parse: dpkg status") {
  const char* status = "Package: rocm-core\nStatus: install ok installed\nVersion: 6.2.0.60200-66~22.04\n"
                       "Description: ROCm core\n Package: not-a-package\n Version: 0\n\n"
                       "Package: nvidia-driver-550\nStatus: hold ok installed\nArchitecture: amd64\n"
                       "Version: 550.144.03-0ubuntu1\n\n"
                       "Package: amdgpu-dkms\nStatus: deinstall ok config-files\nVersion: 1:6.8.5.60200\n\n"
                       "Package: cuda-toolkit-12-4\nStatus: install ok half-configured\nVersion: 12.4.1-1\n"
                       "\nPackage: half-unpacked\nStatus: install reinstreq installed\nVersion: 1\n"
                       "\n\n\nPackage: libc6\nStatus: install ok installed\nVersion: 2.36-9\n";
  auto p = parse::dpkg_status(status);
  CHECK(p.size() == 3);
  CHECK(p.at("rocm-core") == "6.2.0.60200-66~22.04");
  CHECK(p.at("nvidia-driver-550") == "550.144.03-0ubuntu1");
  CHECK(p.at("libc6") == "2.36-9"); // the last paragraph has no blank line after it
  CHECK(p.count("amdgpu-dkms") == 0);
  CHECK(p.count("cuda-toolkit-12-4") == 0);
  CHECK(p.count("half-unpacked") == 0); // dpkg must reinstall it first
  CHECK(p.count("not-a-package") == 0);
  CHECK(parse::dpkg_status("").empty());

  if (std::filesystem::exists("/var/lib/dpkg/status")) {
    auto real = parse::dpkg_status(slurp("/var/lib/dpkg/status"));
    CHECK(real.count("dpkg") == 1);
  }
}

TEST_CASE("parse: dpkg status dependencies") {
  const char* status =
      "Package: libucx0\nStatus: install ok installed\nVersion: 1.16.0+ds-5ubuntu1\n"
      "Depends: ibverbs-providers (>= 35), libamdhip64-5 (>= 4.5.2), libc6 (>= 2.38)\n"
      "Description: x\n Depends: not-a-field\n\n"
      "Package: python3\nStatus: install ok installed\nPre-Depends: python3-minimal (= 3.12.3)\n"
      "Depends: python3.12 (>= 3.12.3-0~), libpython3-stdlib | libfoo:any [amd64]\n\n"
      "Package: gone\nStatus: deinstall ok config-files\nDepends: libc6\n\n"
      "Package: leaf\nStatus: install ok installed\n";
  auto d = parse::dpkg_depends(status);
  CHECK(d.size() == 3);
  CHECK(d.at("libucx0") == std::vector<std::string>{"ibverbs-providers", "libamdhip64-5", "libc6"});
  CHECK(d.at("python3") ==
        std::vector<std::string>{"python3-minimal", "python3.12", "libpython3-stdlib", "libfoo"});
  CHECK(d.at("leaf").empty());
  CHECK(d.count("gone") == 0);
  CHECK(parse::dpkg_depends("Depends: , ,|\n").empty()); // no Package line: nothing
  // A tab before the version constraint ends the name as a space does.
  auto tab = parse::dpkg_depends("Package: a\nStatus: install ok installed\nDepends: libc6\t(>= 2.38)\n");
  CHECK(tab.at("a") == std::vector<std::string>{"libc6"});
}

TEST_CASE("parse: CUDA toolkit version.json, version.txt and nvcc --version") {
  CHECK(parse::cuda_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "13.0.2"},
      "cuda_cccl": {"name": "CUDA C++ Core Compute Libraries", "version": "13.0.85"}})") == "13.0.2");
  CHECK(parse::cuda_version_json(R"({"cuda":{"name":"CUDA SDK","version":"11.8.20220929"}})") ==
        "11.8.20220929");
  CHECK_FALSE(parse::cuda_version_json(R"({"cuda_cccl": {"version": "13.0.85"}})"));
  CHECK_FALSE(parse::cuda_version_json(R"({"cuda": {"version": 12}})"));
  CHECK_FALSE(parse::cuda_version_json(R"({"cuda": "12.4"})"));
  CHECK_FALSE(parse::cuda_version_json(R"(["cuda"])"));
  CHECK_FALSE(parse::cuda_version_json("{\"cuda\": {\"version\": \"13.0"));

  CHECK(parse::cuda_version_txt("CUDA Version 10.2.89\n") == "10.2.89");
  CHECK(parse::cuda_version_txt("CUDA Version 9.0.176") == "9.0.176");
  CHECK_FALSE(parse::cuda_version_txt("CUDA Version \n"));
  CHECK_FALSE(parse::cuda_version_txt(""));

  CHECK(parse::nvcc_version(realdata("nvcc-version-cuda-10.1-old-toolkit-1.txt")) == "10.1.243");
  CHECK(parse::nvcc_version(realdata("nvcc-version-cuda-11.8-1.txt")) == "11.8.89");
  CHECK(parse::nvcc_version(realdata("nvcc-version-cuda-12.1-1.txt")) == "12.1.105");
  CHECK(parse::nvcc_version("Cuda compilation tools, release 12.1\r\n") == "12.1");
  CHECK(parse::nvcc_version("Cuda compilation tools, release 12.4, V12.4.131\r\n") == "12.4.131");
  CHECK_FALSE(parse::nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\n"));
  CHECK_FALSE(parse::nvcc_version("bash: nvcc: command not found\n"));
}

TEST_CASE("parse: torch/version.py") {
  // Debian's python3-torch 1.13.1+dfsg-4 ships a version.py that says 1.13.0a0 (a source build's default).
  auto deb =
      parse::torch_version_py(slurp(test::data_path("parse/torch-version-debian-python3-torch-1.13.1.py")));
  REQUIRE(deb);
  CHECK(deb->version == "1.13.0a0");
  CHECK_FALSE(deb->cuda);
  CHECK_FALSE(deb->hip);

  auto cu =
      parse::torch_version_py("from typing import Optional\n\n"
                              "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                              "__version__ = '2.6.0+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n"
                              "git_version = '2236df1770800ffea5697b11b0bb0d910b2e59e1'\n"
                              "hip: Optional[str] = None\n");
  REQUIRE(cu);
  CHECK(cu->version == "2.6.0+cu124");
  CHECK(cu->cuda == "12.4");
  CHECK_FALSE(cu->hip);

  auto rocm =
      parse::torch_version_py("__version__ = \"2.6.0.dev20240918+rocm6.2\"\n"
                              "cuda: Optional[str] = None\nhip: Optional[str] = '6.2.41133-dd7f95766'\n");
  REQUIRE(rocm);
  CHECK(rocm->version == "2.6.0.dev20240918+rocm6.2");
  CHECK_FALSE(rocm->cuda);
  CHECK(rocm->hip == "6.2.41133-dd7f95766");

  CHECK_FALSE(parse::torch_version_py(""));
  CHECK_FALSE(parse::torch_version_py("cuda = '12.4'\n"));
  CHECK_FALSE(parse::torch_version_py("__version__ = get_version()\n"));
}

TEST_CASE("parse: pci.ids names, hand-made excerpt") {
  std::string ids = slurp(test::data_path("parse/pci-ids-excerpt.txt"));
  REQUIRE_FALSE(ids.empty());
  CHECK(parse::pci_ids_name(ids, 0x10de, 0x2335) == "GH100 [H200 SXM 141GB]");
  CHECK(parse::pci_ids_name(ids, 0x10de, 0x2335, 0x10de, 0x18be) == "H200 SXM 141GB");
  CHECK(parse::pci_ids_name(ids, 0x10de, 0x2335, 0x10de, 0x0001) == "GH100 [H200 SXM 141GB]");
  CHECK(parse::pci_ids_name(ids, 0x10de, 0x2684, 0x1043, 0x889d) == "TUF Gaming GeForce RTX 4090 OC");
  CHECK(parse::pci_ids_name(ids, 0x1002, 0x744c, 0x1002, 0x0e3b) == "Radeon RX 7900 XTX");
  CHECK(parse::pci_ids_name(ids, 0x1002, 0x74a1) == "Aqua Vanjaram [Instinct MI300X]");
  // The same device id under another vendor; a device listed under another vendor only.
  CHECK(parse::pci_ids_name(ids, 0x8086, 0x2335) == "DH89xxCC USB2 Enhanced Host Controller #1");
  CHECK_FALSE(parse::pci_ids_name(ids, 0x1002, 0x2330));
  CHECK_FALSE(parse::pci_ids_name(ids, 0x10de, 0x9999));
  CHECK_FALSE(parse::pci_ids_name(ids, 0x1234, 0x0000));
  CHECK_FALSE(parse::pci_ids_name(ids, 0x0c03, 0x0000)); // the class list is not a vendor list
  CHECK_FALSE(parse::pci_ids_name("", 0x10de, 0x2335));
}

TEST_CASE("parse: pci.ids of this machine") {
  std::filesystem::path path;
  for (const char* p : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"})
    if (std::filesystem::exists(p)) path = p;
  if (path.empty()) return;
  std::string ids = slurp(path);
  auto h100 = parse::pci_ids_name(ids, 0x10de, 0x2330);
  REQUIRE(h100);
  CHECK(h100->find("H100") != std::string::npos);
  auto navi31 = parse::pci_ids_name(ids, 0x1002, 0x744c);
  REQUIRE(navi31);
  CHECK(navi31->find("Navi 31") != std::string::npos);
  CHECK_FALSE(parse::pci_ids_name(ids, 0x10de, 0xfffe));
}

TEST_CASE("parse: cuDNN and NCCL header versions") {
  const char* cudnn = "#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n#define CUDNN_MAJOR 9\n"
                      "#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n\n"
                      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n";
  CHECK(parse::cudnn_header_version(cudnn) == "9.3.0");
  CHECK(parse::cudnn_header_version("#  define CUDNN_MAJOR (8)\n#define CUDNN_MINOR 9\n") == "8.9");
  CHECK_FALSE(parse::cudnn_header_version("#define CUDNN_MAJOR 9\n"));
  CHECK_FALSE(parse::cudnn_header_version("#define CUDNN_MAJOR_X 9\n#define CUDNN_MINOR 1\n"));

  const char* nccl =
      "#define NCCL_MAJOR 2\n#define NCCL_MINOR 21\n#define NCCL_PATCH 5\n#define NCCL_SUFFIX \"\"\n\n"
      "#define NCCL_VERSION_CODE 22105\n"
      "#define NCCL_VERSION(X,Y,Z) (((X) <= 2 && (Y) <= 8) ? (X) * 1000 : (X) * 10000)\n";
  CHECK(parse::nccl_header_version(nccl) == "2.21.5");
  CHECK_FALSE(parse::nccl_header_version(cudnn));
  CHECK_FALSE(parse::nccl_header_version(""));

  // The CUDA toolkit of this machine, when it has these headers.
  std::filesystem::path inc = "/usr/local/cuda/include";
  if (std::filesystem::exists(inc / "cudnn_version.h")) {
    auto v = parse::cudnn_header_version(slurp(inc / "cudnn_version.h"));
    REQUIRE(v);
    CHECK(std::count(v->begin(), v->end(), '.') == 2);
  }
  if (std::filesystem::exists(inc / "nccl.h")) {
    auto v = parse::nccl_header_version(slurp(inc / "nccl.h"));
    REQUIRE(v);
    CHECK(v->starts_with("2."));
  }
}

TEST_CASE("parse: a PCI device's BAR sizes (sysfs resource) and what its Resizable BAR offers") {
  // A 256 MiB BAR0 below 4 GiB (ROCm/legacy-rocm-build#744's "Memory at c0000000 ... [size=256M]"), an unused
  // BAR1, a 2 MiB BAR2, in the kernel's resource_show format.
  const std::string resource = "0x00000000c0000000 0x00000000cfffffff 0x000000000014220c\n"
                               "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
                               "0x00000000d0000000 0x00000000d01fffff 0x000000000014220c\n";
  CHECK(parse::pci_resource_size(resource, 0) == 256ULL << 20);
  CHECK_FALSE(parse::pci_resource_size(resource, 1));
  CHECK(parse::pci_resource_size(resource, 2) == 2ULL << 20);
  CHECK_FALSE(parse::pci_resource_size(resource, 3));
  CHECK(parse::pci_resource_size("0x0000380000000000 0x000038ffffffffff 0x0\n", 0) == 1ULL << 40);
  for (const char* bad :
       {"", "garbage", "0x10 0x0f 0x0", "0xffffffffffffffff 0xffffffffffffffff 0x0", "0x0 x"})
    CHECK_FALSE(parse::pci_resource_size(bad, 0));
  // Bits 8..16: 256 MiB to 64 GiB.
  CHECK(parse::pci_rebar_largest("000000000001ff00\n") == 64ULL << 30);
  CHECK(parse::pci_rebar_largest("0x100") == 256ULL << 20);
  CHECK(parse::pci_rebar_largest("1") == 1ULL << 20);
  for (const char* bad : {"", "0", "zz", "-1", "ffffffffffffffff"})
    CHECK_FALSE(parse::pci_rebar_largest(bad));
}
