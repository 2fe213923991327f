// Unpacking an untrusted bundle (util/unpack): the whole archive is checked before anything is written, and
// nothing lands outside the destination (docs/security.md).
#include "unit/testutil.hpp"
#include "util/unpack.hpp"

#include <filesystem>
#include <string>
#include <zlib.h>

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

// `data` as one gzip member (RFC 1952), as `gpudoctor bundle` writes it.
std::string gzip(const std::string& data) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
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

  // libarchive's gzip reader leaves the trailer unverified, and a tar reader stops at the end blocks, before
  // it: a bundle damaged in transit replayed with exit 0 (issue 24).
  TEST_CASE("unpack: a gzip member whose CRC-32 or length is wrong is refused, and nothing is written") {
    std::string tar = tar_member("manifest.json", '0', "{}") + tar_member("fs/a", '0', "abc") + tar_end();
    std::string good = gzip(tar);
    {
      Dest d;
      REQUIRE_FALSE(unpack_archive_memory(good, d.dir, ArchiveLimits{}));
      CHECK(fs::is_regular_file(d.dir / "fs/a"));
    }
    struct Damage {
      std::size_t from_end;
      const char* says;
    };
    for (auto [from_end, says] : {Damage{8, "incorrect data check"}, Damage{5, "incorrect data check"},
                                  Damage{4, "incorrect length check"}, Damage{1, "incorrect length check"}}) {
      CAPTURE(from_end);
      std::string bad = good;
      bad[bad.size() - from_end] = static_cast<char>(bad[bad.size() - from_end] ^ 0x01);
      Dest d;
      auto refused = unpack_archive_memory(bad, d.dir, ArchiveLimits{});
      REQUIRE(refused);
      CHECK(refused->find(says) != std::string::npos);
      CHECK(d.empty());
    }
  }

  TEST_CASE(
      "unpack: a truncated gzip stream, or data after it, is refused; NUL padding and members are not") {
    std::string tar = tar_member("manifest.json", '0', "{}") + tar_end();
    std::string good = gzip(tar);
    for (std::size_t cut : {std::size_t{1}, std::size_t{4}, std::size_t{8}, good.size() / 2}) {
      CAPTURE(cut);
      Dest d;
      auto refused = unpack_archive_memory(good.substr(0, good.size() - cut), d.dir, ArchiveLimits{});
      REQUIRE(refused);
      CHECK(d.empty());
    }
    {
      Dest d;
      auto refused = unpack_archive_memory(good + "trailing", d.dir, ArchiveLimits{});
      REQUIRE(refused);
      CHECK(refused->find("after the end of the gzip stream") != std::string::npos);
    }
    {
      Dest d; // padded to a tape block, as dd and some transfers do
      CHECK_FALSE(unpack_archive_memory(good + std::string(10000, '\0'), d.dir, ArchiveLimits{}));
    }
    {
      Dest d; // the tar split over two members (cat a.gz b.gz): one stream (RFC 1952, 2.2)
      std::string two = gzip(tar.substr(0, 700)) + gzip(tar.substr(700));
      CHECK_FALSE(unpack_archive_memory(two, d.dir, ArchiveLimits{}));
      CHECK(fs::is_regular_file(d.dir / "manifest.json"));
    }
    {
      Dest d; // a second member that is damaged
      std::string second = gzip(std::string(512, '\0'));
      second[second.size() - 6] ^= 0x10;
      CHECK(unpack_archive_memory(good + second, d.dir, ArchiveLimits{}));
    }
  }

  TEST_CASE("unpack: content past the tar's end is bounded (a gzip bomb after the end blocks)") {
    ArchiveLimits small;
    small.max_total_bytes = 1 << 20;
    small.max_entries = 16;
    std::string tar = tar_member("manifest.json", '0', "{}") + tar_end() + std::string(8 << 20, '\0');
    Dest d;
    auto refused = unpack_archive_memory(gzip(tar), d.dir, small);
    REQUIRE(refused);
    CHECK(refused->find("unpacks to more than") != std::string::npos);
    CHECK(d.empty());
  }

  // libarchive's filters include some that start an external program (lrzip, lzop, grzip): a hostile bundle
  // must not make gpudoctor, often root, run one. Only gzip is undone; the others are named.
  TEST_CASE("unpack: other compressions are named and refused, never undone") {
    struct Magic {
      std::string bytes;
      const char* name;
    };
    for (const auto& [bytes, name] : {Magic{std::string("\xFD"
                                                        "7zXZ",
                                                        5) +
                                                '\0',
                                            "xz"},
                                      Magic{"\x28\xB5\x2F\xFD", "zstd"}, Magic{"BZh91AY", "bzip2"},
                                      Magic{"LRZI\x00\x06", "lrzip"}, Magic{"\x89LZO\x00\r\n", "lzop"}}) {
      CAPTURE(name);
      Dest d;
      auto refused = unpack_archive_memory(bytes + std::string(600, 'x'), d.dir, ArchiveLimits{});
      REQUIRE(refused);
      CHECK(refused->find(std::string("compressed with ") + name) != std::string::npos);
    }
  }
}
