// Unpacking an untrusted bundle (util/unpack): the whole archive is checked before anything is written, and
// nothing lands outside the destination (docs/security.md).
#include "unit/testutil.hpp"
#include "util/unpack.hpp"

#include <filesystem>
#include <string>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

// One ustar member (POSIX.1-1988 header of 512 bytes, then the data padded to 512).
std::string tar_member(const std::string& name, char type, const std::string& data = "",
                       const std::string& link = "") {
  std::string h(512, '\0');
  auto put = [&](std::size_t at, std::size_t width, const std::string& value) {
    h.replace(at, std::min(width, value.size()), value.substr(0, width));
  };
  auto octal = [](unsigned long long v, int width) {
    std::string s(static_cast<std::size_t>(width - 1), '0');
    for (int i = width - 2; i >= 0 && v; --i, v >>= 3)
      s[static_cast<std::size_t>(i)] = static_cast<char>('0' + (v & 7));
    return s;
  };
  put(0, 100, name);
  put(100, 8, octal(type == '5' ? 0755 : 0644, 8));
  put(108, 8, octal(0, 8));
  put(116, 8, octal(0, 8));
  put(124, 12, octal(type == '0' ? data.size() : 0, 12));
  put(136, 12, octal(0, 12));
  h[156] = type;
  put(157, 100, link);
  put(257, 6, std::string("ustar", 6));
  put(263, 2, "00");
  put(148, 8, std::string(8, ' '));
  unsigned sum = 0;
  for (unsigned char c : h)
    sum += c;
  put(148, 8, octal(sum, 7) + std::string(1, '\0'));
  std::string body = type == '0' ? data : "";
  body.resize((body.size() + 511) / 512 * 512, '\0');
  return h + body;
}

std::string tar_end() {
  return std::string(1024, '\0');
}

struct Dest {
  test::TempDir tmp{"gpudoctor-unpack"};
  const fs::path& base = tmp.path();
  fs::path dir = base / "dest";
  Dest() { fs::create_directories(dir); }
  bool empty() const { return fs::is_empty(dir); }
};

} // namespace

TEST_SUITE("security") {
  TEST_CASE("unpack: a well-formed archive unpacks, links kept as recorded") {
    Dest d;
    std::string tar = tar_member("manifest.json", '0', "{}") + tar_member("fs/", '5') +
                      tar_member("fs/sys/bus", '2', "", "../../devices") + tar_end();
    REQUIRE_FALSE(unpack_archive_memory(tar, d.dir, ArchiveLimits{}));
    CHECK(fs::is_regular_file(d.dir / "manifest.json"));
    CHECK(fs::read_symlink(d.dir / "fs/sys/bus") == "../../devices");
  }

  TEST_CASE("unpack: a refused member anywhere means nothing is written") {
    for (std::string bad : {tar_member("../escaped", '0', "x"), tar_member("/abs", '0', "x"),
                            tar_member("fs/hard", '1', "", "manifest.json"), tar_member("fs/fifo", '6'),
                            tar_member("fs/dev", '3'), tar_member("fs/link", '2', "", "")}) {
      Dest d;
      std::string tar =
          tar_member("manifest.json", '0', "{}") + tar_member("fs/a", '0', "a") + bad + tar_end();
      auto refused = unpack_archive_memory(tar, d.dir, ArchiveLimits{});
      CHECK(refused);
      CHECK(d.empty()); // before: the members ahead of the bad one were written
      CHECK_FALSE(fs::exists(d.base / "escaped"));
    }
  }

  TEST_CASE("unpack: the limits on members, sizes, names and depth") {
    ArchiveLimits small;
    small.max_entries = 3;
    small.max_entry_bytes = 10;
    small.max_total_bytes = 15;
    small.max_name_bytes = 40;
    small.max_depth = 3;
    auto refused = [&](const std::string& members) {
      Dest d;
      auto why = unpack_archive_memory(members + tar_end(), d.dir, small);
      CHECK(d.empty());
      return why.value_or("");
    };
    CHECK(refused(tar_member("a", '0') + tar_member("b", '0') + tar_member("c", '0') + tar_member("d", '0'))
              .find("more than 3 members") != std::string::npos);
    CHECK(refused(tar_member("a", '0', std::string(11, 'x'))).find("too large") != std::string::npos);
    CHECK(refused(tar_member("a", '0', std::string(8, 'x')) + tar_member("b", '0', std::string(8, 'x')))
              .find("more than") != std::string::npos);
    CHECK(refused(tar_member(std::string(41, 'n'), '0')).find("longer than 40") != std::string::npos);
    CHECK(refused(tar_member("a/b/c/d/e", '0')).find("deeper than 3") != std::string::npos);
  }

  TEST_CASE("unpack: nothing is written through a symlink member, even one made earlier in the archive") {
    Dest d;
    fs::create_directories(d.base / "outside");
    std::string tar = tar_member("fs", '2', "", (d.base / "outside").string()) +
                      tar_member("fs/planted", '0', "x") + tar_end();
    CHECK(unpack_archive_memory(tar, d.dir, ArchiveLimits{}));
    CHECK(fs::is_empty(d.base / "outside"));
  }

  TEST_CASE("unpack: a member name with control characters is quoted, escaped, in the message") {
    Dest d;
    std::string tar = tar_member("../\x1b[31mred\n", '0', "x") + tar_end();
    auto why = unpack_archive_memory(tar, d.dir, ArchiveLimits{});
    REQUIRE(why);
    CHECK(why->find('\x1b') == std::string::npos);
    CHECK(why->find('\n') == std::string::npos);
  }

  TEST_CASE("unpack: garbage and truncated archives are refused, never a crash") {
    std::string good = tar_member("manifest.json", '0', "{}") + tar_end();
    for (std::string bad :
         {std::string(), std::string("garbage"), good.substr(0, 700), good.substr(0, 100)}) {
      Dest d;
      CHECK(unpack_archive_memory(bad, d.dir, ArchiveLimits{}));
    }
  }
}
