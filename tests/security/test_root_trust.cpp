// The rule root applies to what it runs, reads as its own record, or writes through (system/root_trust):
// root-owned and writable by neither group nor others, the whole way, links judged by their folder.
#include "system/root_trust.hpp"
#include "unit/testutil.hpp"

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

constexpr unsigned k_stranger_uid = 64123; // a uid with no account: named by its number

void make(const fs::path& p, mode_t mode, bool folder = false) {
  if (folder)
    fs::create_directory(p);
  else
    test::write_text(p, "#!/bin/sh\n");
  REQUIRE(::chmod(p.c_str(), mode) == 0);
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("root trusts only what root alone can change, the whole way down") {
    if (::geteuid() != 0) return; // ownership by another uid needs chown
    test::TempDir tmp("gpudoctor-trust");
    const std::string R = tmp.path().string();
    REQUIRE(::chmod(R.c_str(), 0755) == 0);
    make(tmp / "bin", 0755, true);
    make(tmp / "bin/tool", 0755);
    CHECK_FALSE(distrust_for_root("/bin/tool", R));
    CHECK_FALSE(distrust_for_root("/bin", R));

    SUBCASE("a program another user owns") {
      REQUIRE(::chown((tmp / "bin/tool").c_str(), k_stranger_uid, 0) == 0);
      auto d = distrust_for_root("/bin/tool", R);
      REQUIRE(d);
      CHECK(d->path == "/bin/tool");
      CHECK(d->uid == k_stranger_uid);
      CHECK(d->describe("/bin/tool") == "owned by 64123");
    }
    SUBCASE("a program its group or others may write") {
      REQUIRE(::chmod((tmp / "bin/tool").c_str(), 0775) == 0);
      CHECK(distrust_for_root("/bin/tool", R)->why == "writable by its group");
      REQUIRE(::chmod((tmp / "bin/tool").c_str(), 0757) == 0);
      CHECK(distrust_for_root("/bin/tool", R)->why == "writable by others");
    }
    SUBCASE("a folder above it that another user can write, sticky or not") {
      REQUIRE(::chmod((tmp / "bin").c_str(), 01777) == 0);
      auto d = distrust_for_root("/bin/tool", R);
      REQUIRE(d);
      CHECK(d->describe("/bin/tool") == "/bin is writable by others");
      REQUIRE(::chmod((tmp / "bin").c_str(), 0755) == 0);
      REQUIRE(::chown((tmp / "bin").c_str(), k_stranger_uid, 0) == 0);
      CHECK(distrust_for_root("/bin/tool", R)->path == "/bin");
    }
    SUBCASE("a link is judged by its folder, its target by the same rule") {
      make(tmp / "home", 0755, true);
      REQUIRE(::chown((tmp / "home").c_str(), k_stranger_uid, 0) == 0);
      fs::create_symlink("/bin/tool", tmp / "home/tool"); // in a folder another user may change
      CHECK(distrust_for_root("/home/tool", R)->path == "/home");
      fs::create_symlink("../bin/tool", tmp / "bin/alias"); // root's folder, root's target
      CHECK_FALSE(distrust_for_root("/bin/alias", R));
      REQUIRE(::lchown((tmp / "bin/alias").c_str(), k_stranger_uid, 0) ==
              0); // the link's owner cannot repoint it
      CHECK_FALSE(distrust_for_root("/bin/alias", R));
      make(tmp / "bin/theirs", 0755);
      REQUIRE(::chown((tmp / "bin/theirs").c_str(), k_stranger_uid, 0) == 0);
      fs::create_symlink("theirs", tmp / "bin/to-theirs"); // root's link to another user's program
      auto d = distrust_for_root("/bin/to-theirs", R);
      REQUIRE(d);
      CHECK(d->describe("/bin/to-theirs") == "/bin/theirs is owned by 64123");
      fs::create_symlink("/", tmp / "bin/up"); // an absolute target stays below the judged root
      CHECK_FALSE(distrust_for_root("/bin/up/bin/tool", R));
    }
    SUBCASE("missing, relative and looping paths are not root's") {
      CHECK(distrust_for_root("/bin/none", R)->why == "missing");
      CHECK(distrust_for_root("bin/tool", R)->why == "not an absolute path");
      fs::create_symlink("loop", tmp / "bin/loop");
      CHECK(distrust_for_root("/bin/loop", R));
    }
  }

  TEST_CASE("the machine's own programs are root's; the temporary folder is not") {
    if (::geteuid() != 0) return;
    CHECK_FALSE(distrust_for_root("/bin/sh")); // /bin may be a link to usr/bin: followed
    CHECK(distrust_for_root("/tmp")->why == "writable by others");
  }

  TEST_CASE("a folder root writes into may be sticky, if what root judges below it is root's") {
    if (::geteuid() != 0) return;
    test::TempDir tmp("gpudoctor-trust");
    const std::string R = tmp.path().string();
    REQUIRE(::chmod(R.c_str(), 0755) == 0);
    make(tmp / "tmp", 01777, true); // /tmp: root's, sticky, anyone may add names
    CHECK_FALSE(distrust_for_root_writes("/tmp", R));
    CHECK(distrust_for_root("/tmp", R)->why == "writable by others"); // not for what root runs
    make(tmp / "tmp/roots", 0700, true);
    CHECK_FALSE(distrust_for_root_writes("/tmp/roots", R));

    SUBCASE("a folder others may write without the sticky bit: anyone may swap what root made there") {
      REQUIRE(::chmod((tmp / "tmp").c_str(), 0777) == 0);
      CHECK(distrust_for_root_writes("/tmp/roots", R)->describe("/tmp/roots") ==
            "/tmp is writable by others");
      REQUIRE(::chmod((tmp / "tmp").c_str(), 0775) == 0);
      CHECK(distrust_for_root_writes("/tmp", R)->why == "writable by its group");
    }
    SUBCASE("another user's folder, sticky or not") {
      make(tmp / "tmp/theirs", 01777, true);
      REQUIRE(::chown((tmp / "tmp/theirs").c_str(), k_stranger_uid, 0) == 0);
      CHECK(distrust_for_root_writes("/tmp/theirs", R)->why == "owned by 64123");
    }
    SUBCASE("a link in a sticky folder is its owner's to replace") {
      fs::create_symlink("roots", tmp / "tmp/to-roots");
      CHECK_FALSE(distrust_for_root_writes("/tmp/to-roots", R));
      REQUIRE(::lchown((tmp / "tmp/to-roots").c_str(), k_stranger_uid, 0) == 0);
      auto d = distrust_for_root_writes("/tmp/to-roots", R);
      REQUIRE(d);
      CHECK(d->path == "/tmp/to-roots");
      CHECK(d->why == "owned by 64123");
    }
  }

  TEST_CASE("one place judged alone") {
    CHECK_FALSE(distrust_place(0, S_IFDIR | 0755, false));
    CHECK(*distrust_place(0, S_IFDIR | 01777, false) == "writable by others");
    CHECK_FALSE(distrust_place(0, S_IFDIR | 01777, true));
    CHECK(*distrust_place(0, S_IFREG | 01777, true) == "writable by others"); // the sticky bit of a file
    CHECK(*distrust_place(k_stranger_uid, S_IFDIR | 0700, true) == "owned by 64123");
  }
}
