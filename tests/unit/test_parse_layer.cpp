// The parsers of the software layer: the ELF DT_NEEDED reader (over synthetic ELF32/ELF64 files of either
// byte order, and a real library), /proc/self/limits, df -Pk and METADATA's Requires-Dist.
#include "parse/parsers_layer.hpp"
#include "unit/test_parse_util.hpp"

#include <cstdint>
#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// A minimal shared object: ELF header, a PT_LOAD covering the file, a PT_DYNAMIC, the dynamic entries and the
// string table, in the requested class and byte order.
struct ElfBuilder {
  bool is64 = true, big = false;
  std::string out;
  void put(std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      out += static_cast<char>((v >> (8 * (big ? n - 1 - i : i))) & 0xff);
  }
  void put_at(std::size_t at, std::uint64_t v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      out[at + i] = static_cast<char>((v >> (8 * (big ? n - 1 - i : i))) & 0xff);
  }

  std::string build(const std::vector<std::string>& needed, const std::string& soname) {
    std::size_t word = is64 ? 8 : 4, ehsize = is64 ? 64 : 52, phentsize = is64 ? 56 : 32;
    std::string strtab(1, '\0');
    std::vector<std::uint64_t> offs;
    for (const auto& n : needed) {
      offs.push_back(strtab.size());
      strtab += n + '\0';
    }
    std::uint64_t soname_off = strtab.size();
    strtab += soname + '\0';
    std::size_t phoff = ehsize, dyn_off = phoff + 2 * phentsize;
    std::size_t dyn_entries = needed.size() + 4;
    std::size_t str_off = dyn_off + dyn_entries * 2 * word;
    std::size_t total = str_off + strtab.size();
    out.assign(ehsize, '\0');
    out.replace(0, 4,
                "\x7f"
                "ELF");
    out[4] = is64 ? 2 : 1;
    out[5] = big ? 2 : 1;
    out[6] = 1;
    if (is64) {
      put_at(32, phoff, 8);
      put_at(54, phentsize, 2);
      put_at(56, 2, 2);
    } else {
      put_at(28, phoff, 4);
      put_at(42, phentsize, 2);
      put_at(44, 2, 2);
    }
    auto phdr = [&](std::uint32_t type, std::uint64_t off, std::uint64_t size) {
      if (is64) {
        put(type, 4), put(6, 4), put(off, 8), put(off, 8), put(off, 8), put(size, 8), put(size, 8), put(8, 8);
      } else {
        put(type, 4), put(off, 4), put(off, 4), put(off, 4), put(size, 4), put(size, 4), put(6, 4), put(4, 4);
      }
    };
    phdr(1, 0, total);
    phdr(2, dyn_off, dyn_entries * 2 * word);
    for (auto o : offs)
      put(1, word), put(o, word);
    put(14, word), put(soname_off, word);
    put(5, word), put(str_off, word);
    put(10, word), put(strtab.size(), word);
    put(0, word), put(0, word);
    out += strtab;
    return out;
  }
};

} // namespace

TEST_CASE("parse: elf_needed reads DT_NEEDED and DT_SONAME of ELF32/ELF64, either byte order") {
  for (bool is64 : {true, false})
    for (bool big : {false, true}) {
      CAPTURE(is64);
      CAPTURE(big);
      ElfBuilder b{is64, big, {}};
      std::string file = b.build({"libcudart.so.12", "libc10_cuda.so", "libc.so.6"}, "libflash.so");
      auto e = parse::elf_needed_bytes(file);
      REQUIRE(e);
      CHECK(e->bits == (is64 ? 64 : 32));
      CHECK(e->needed == std::vector<std::string>{"libcudart.so.12", "libc10_cuda.so", "libc.so.6"});
      CHECK(e->soname == "libflash.so");
      // Cut anywhere before the end: nothing, never a wrong list.
      for (std::size_t cut : {4ul, 40ul, 100ul, file.size() - 1})
        CHECK_FALSE(parse::elf_needed_bytes(std::string_view(file).substr(0, cut)));
    }
}

TEST_CASE("parse: elf_needed refuses inconsistent files") {
  ElfBuilder b;
  std::string good = b.build({"libamdhip64.so.6"}, "x.so");
  CHECK(parse::elf_needed_bytes(good));
  CHECK_FALSE(parse::elf_needed_bytes("not an elf"));
  std::string bad_class = good;
  bad_class[4] = 7;
  CHECK_FALSE(parse::elf_needed_bytes(bad_class));
  std::string huge_phnum = good;
  huge_phnum[56] = '\xff', huge_phnum[57] = '\xff';
  CHECK_FALSE(parse::elf_needed_bytes(huge_phnum));
  std::string no_nul = good; // the last string loses its terminator
  no_nul.back() = 'x';
  CHECK_FALSE(parse::elf_needed_bytes(no_nul));
  // The reader asks only for bounded ranges.
  std::size_t largest = 0;
  (void)parse::elf_needed([&](std::uint64_t offset, std::size_t length) -> std::optional<std::string> {
    largest = std::max(largest, length);
    return offset < good.size() ? good.substr(offset, length) : std::string();
  });
  CHECK(largest <= parse::k_elf_max_read);
}

TEST_CASE("parse: elf_needed reads a library a compiler made") {
  std::string lib = test::slurp(std::filesystem::path(GPUDOCTOR_SOURCE_DIR) / "fuzz/seeds/elf-tiny-lib.so");
  auto e = parse::elf_needed_bytes(lib);
  REQUIRE(e);
  CHECK(e->bits == 64);
  CHECK(e->needed == std::vector<std::string>{"libm.so.6", "libc.so.6"});
}

TEST_CASE("parse: memlock_limit, df_size_kib, requires_dist") {
  auto limits = test::slurp(std::filesystem::path(GPUDOCTOR_SOURCE_DIR) / "fuzz/seeds/proc-self-limits.txt");
  auto l = parse::memlock_limit(limits);
  REQUIRE(l);
  CHECK(l->soft == "8388608");
  CHECK(l->hard == "8388608");
  CHECK(parse::memlock_limit("Max locked memory         unlimited            unlimited            bytes\n")
            ->soft == "unlimited");
  CHECK_FALSE(parse::memlock_limit("Max locked memory  lots  more  bytes\n"));
  CHECK_FALSE(parse::memlock_limit("Max open files  1024  4096  files\n"));

  CHECK(parse::df_size_kib("Filesystem     1024-blocks  Used Available Capacity Mounted on\n"
                           "shm                  65536     0     65536       0% /dev/shm\n") == 65536u);
  CHECK(parse::df_size_kib("tmpfs 16777216 0 16777216 0% /dev/shm\n") == 16777216u);
  CHECK_FALSE(parse::df_size_kib("df: /dev/shm: No such file or directory\n"));

  auto reqs =
      parse::requires_dist("Metadata-Version: 2.1\nName: torchvision\nRequires-Dist: numpy\n"
                           "Requires-Dist: torch (==2.5.1)\n"
                           "Requires-Dist: nvidia_cudnn_cu12==9.1.0.70; platform_system == \"Linux\"\n"
                           "Requires-Dist: torch[opt-einsum]>=2.0\n\nRequires-Dist: in-the-description\n");
  REQUIRE(reqs.size() == 4);
  CHECK(reqs[0].name == "numpy");
  CHECK(reqs[0].spec.empty());
  CHECK(reqs[1].name == "torch");
  CHECK(reqs[1].spec == "==2.5.1");
  CHECK(reqs[2].name == "nvidia-cudnn-cu12");
  CHECK(reqs[2].marker == "platform_system == \"Linux\"");
  CHECK(reqs[3].spec == ">=2.0");
}

TEST_CASE("parse: nccl_ib_hca reads NCCL_IB_HCA as NCCL does") {
  auto l = parse::nccl_ib_hca("mlx5_0:1,mlx5_1");
  CHECK_FALSE(l.exclude);
  CHECK_FALSE(l.exact);
  REQUIRE(l.entries.size() == 2);
  CHECK(l.entries[0].name == "mlx5_0");
  CHECK(l.entries[0].port == 1);
  CHECK(l.entries[1].name == "mlx5_1");
  CHECK_FALSE(l.entries[1].port);

  auto x = parse::nccl_ib_hca("^=mlx5_bond_0:1");
  CHECK(x.exclude);
  CHECK(x.exact);
  REQUIRE(x.entries.size() == 1);
  CHECK(x.entries[0].name == "mlx5_bond_0");

  // Empty names are dropped; a port that is no small number is no port.
  auto g = parse::nccl_ib_hca(",:1,mlx5_2:x,mlx5_3:99999999999,^");
  REQUIRE(g.entries.size() == 3);
  CHECK_FALSE(g.entries[0].port);
  CHECK_FALSE(g.entries[1].port);
  CHECK(g.entries[2].name == "^");
  CHECK(parse::nccl_ib_hca("").entries.empty());
  CHECK(parse::nccl_ib_hca("^").exclude);
}

TEST_CASE("parse: version_label reads an extension's local version label") {
  auto fa = parse::version_label("2.6.3+cu118torch2.4cxx11abiFALSE");
  REQUIRE(fa);
  CHECK(fa->label == "cu118torch2.4cxx11abifalse");
  CHECK(fa->cuda);
  CHECK(fa->cuda_major == 11);
  CHECK_FALSE(fa->rocm);
  CHECK(fa->torch_release == "2.4");

  CHECK(parse::version_label("2.7.4+cu12torch2.6cxx11abiTRUE")->cuda_major == 12);
  CHECK(parse::version_label("0.20.0+cu130")->cuda_major == 13);
  auto rocm = parse::version_label("2.6.3+rocm6.1torch2.5");
  REQUIRE(rocm);
  CHECK(rocm->rocm);
  CHECK(rocm->rocm_major == 6);
  CHECK(rocm->torch_release == "2.5");
  CHECK(parse::version_label("1.0+rocm62")->rocm_major == 6);
  // A two-digit ROCm major before its dot.
  CHECK(parse::version_label("1.0+rocm10.1")->rocm_major == 10);

  CHECK_FALSE(parse::version_label("2.5.1"));
  auto other = parse::version_label("0.0.28.post3+git");
  REQUIRE(other);
  CHECK_FALSE(other->cuda);
  CHECK_FALSE(other->rocm);
  CHECK(other->torch_release.empty());
  CHECK(parse::version_label("1+torch")->torch_release.empty());
  CHECK(parse::version_label("1+cu")->cuda == false);
}

TEST_CASE("parse: hsa_override_gfx reads HSA_OVERRIDE_GFX_VERSION as ROCr does") {
  CHECK(parse::hsa_override_gfx("10.3.0") == 100300);
  CHECK(parse::hsa_override_gfx("9.4.2") == 90402);
  CHECK(parse::hsa_override_gfx("11.0.0") == 110000);
  CHECK(parse::hsa_override_gfx("63.255.255") == 655755);
  // Not three dot-separated small numbers: ROCr ignores it.
  for (const char* bad : {"", "gfx1030", "10.3", "10.3.0.1", "10..0", "64.0.0", "10.256.0", "+10.3.0",
                          " 10.3.0", "10.3.0 ", "0010.3.0", "10.3.x", "-1.0.0"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse::hsa_override_gfx(bad));
  }
}

TEST_CASE("parse: ip_addresses, ip -o addr show and ip addr show") {
  // The one-line form, with the addresses of Oneflow-Inc/oneflow#3586 (eno1, a docker veth's fe80::).
  auto o = parse::ip_addresses(
      "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
      "2: eno1    inet 172.18.40.41/16 brd 172.18.255.255 scope global eno1\\       valid_lft forever\n"
      "9: veth25f2e72    inet6 fe80::380d:bfff:fe5b:54d2/64 scope link \\       valid_lft forever\n");
  REQUIRE(o.size() == 3);
  CHECK(o[1].interface == "eno1");
  CHECK(o[1].family == 4);
  CHECK(o[1].address == "172.18.40.41");
  CHECK(o[1].prefix == 16);
  CHECK(o[1].scope == "global");
  CHECK(o[2].family == 6);
  CHECK(o[2].scope == "link");
  // The multi-line form, as users paste it (a bridge port's extra lines are skipped).
  auto m = parse::ip_addresses(
      "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default "
      "qlen 1000\n"
      "    link/ether 00:50:56:94:46:df brd ff:ff:ff:ff:ff:ff\n"
      "    inet 10.129.227.207/16 brd 10.129.255.255 scope global dynamic eth0\n"
      "       valid_lft 3560sec preferred_lft 3560sec\n"
      "    inet6 fe80::250:56ff:fe94:46df/64 scope link \n"
      "5: veth1@if4: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500\n"
      "    inet6 fe80::1/64 scope link\n");
  REQUIRE(m.size() == 3);
  CHECK(m[0].interface == "eth0");
  CHECK(m[0].address == "10.129.227.207");
  CHECK(m[1].family == 6);
  CHECK(m[2].interface == "veth1"); // "@if4" is the peer, not the name
  CHECK(parse::ip_addresses("Device \"eth9\" does not exist.\n").empty());
  CHECK(parse::ip_addresses("    inet 10.0.0.1/8 scope global\n").empty()); // no interface line before it
}

TEST_CASE("parse: nvidia_require, the container toolkit's requirement language") {
  auto r = parse::nvidia_require("cuda>=12.4 brand=tesla,driver>=535,driver<536  BRAND=GeForce,driver>=470");
  REQUIRE(r);
  REQUIRE(r->size() == 3);
  CHECK((*r)[0][0].key == "cuda");
  CHECK((*r)[0][0].op == ">=");
  CHECK((*r)[0][0].value == "12.4");
  REQUIRE((*r)[1].size() == 3);
  CHECK((*r)[1][2].op == "<");
  CHECK((*r)[2][0].key == "brand"); // keys in any case
  CHECK((*r)[2][0].value == "GeForce");
  // What libnvidia-container's dsl.c calls an invalid expression.
  for (const char* bad : {"", "cuda", "cuda>=", ">=12", "cuda=>12.4", "cuda>=12.x", "brand>=tesla",
                          "csv-mounts=all", "cuda>==12"})
    CHECK_MESSAGE(!parse::nvidia_require(bad), bad);
}
