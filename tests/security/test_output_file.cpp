// Outputs root may be asked to write into a folder another user can change (system/output_file,
// docs/security.md "Writing as root"): the folder is opened once without following a link another user can
// change, and every later step is relative to its descriptor.
#include "system/output_file.hpp"
#include "unit/testutil.hpp"

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

constexpr unsigned k_stranger = 64123; // a uid with no account

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

bool empty_folder(const fs::path& p) {
  return fs::is_empty(p);
}

} // namespace

TEST_SUITE("security") {
  TEST_CASE("an output's folder swapped for a link after it was opened: the write stays in the folder") {
    test::TempDir tmp("gpudoctor-output");
    fs::create_directories(tmp / "out");
    fs::create_directories(tmp / "victim");
    auto folder = OutputFolder::open_for((tmp / "out/report.json").string(), true);
    REQUIRE(folder);
    fs::rename(tmp / "out", tmp / "moved"); // what a user who can write the folder above could do
    fs::create_symlink(tmp / "victim", tmp / "out");
    REQUIRE(folder->replace(0600, fill_with("{}\n")));
    CHECK(test::slurp(tmp / "moved/report.json") == "{}\n");
    CHECK(empty_folder(tmp / "victim"));
    CHECK(mode_of(tmp / "moved/report.json") == 0600);
  }

  TEST_CASE("an output is written with its mode whatever the umask, and missing folders are made") {
    test::TempDir tmp("gpudoctor-output");
    mode_t old = ::umask(077);
    auto written = write_output((tmp / "a/b/../c/gpudoctor.prom").string(), "x 1\n", 0644);
    ::umask(old);
    REQUIRE(written);
    CHECK(test::slurp(tmp / "a/c/gpudoctor.prom") == "x 1\n");
    CHECK(mode_of(tmp / "a/c/gpudoctor.prom") == 0644);
    CHECK(fs::is_directory(tmp / "a/b"));
    // Nothing is left beside it.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp / "a/c"))
      ++entries;
    CHECK(entries == 1);
  }

  TEST_CASE("an output that is not a regular file is refused and left as it is") {
    test::TempDir tmp("gpudoctor-output");
    fs::create_directories(tmp / "dir");
    test::write_text(tmp / "file", "kept\n");
    fs::create_symlink(tmp / "file", tmp / "link");
    for (const char* name : {"dir", "link", "dir/"}) {
      CAPTURE(name);
      auto written = write_output((tmp / name).string(), "new\n", 0600);
      REQUIRE_FALSE(written);
      CHECK(written.error().find("not a regular file") != std::string::npos);
    }
    CHECK(test::slurp(tmp / "file") == "kept\n");
    CHECK(fs::is_symlink(tmp / "link"));
  }

  TEST_CASE("as root, links on the way are followed only where no other user can change them") {
    if (::geteuid() != 0) return; // another user's folder needs chown
    test::TempDir tmp("gpudoctor-output");
    REQUIRE(::chmod(tmp.path().c_str(), 0755) == 0);
    fs::create_directories(tmp / "real");
    fs::create_directories(tmp / "home");
    REQUIRE(::chown((tmp / "home").c_str(), k_stranger, 0) == 0);

    SUBCASE("a link in another user's folder") {
      fs::create_symlink(tmp / "real", tmp / "home/out");
      auto refused = write_output((tmp / "home/out/r.json").string(), "{}\n", 0600);
      REQUIRE_FALSE(refused);
      CHECK(refused.error().find((tmp / "home/out").string() + " is a link that another user can change") !=
            std::string::npos);
      CHECK(refused.error().find("is owned by 64123") != std::string::npos);
      CHECK(empty_folder(tmp / "real"));
      // Not run as root, the same link is the user's own business and is followed.
      auto folder = OutputFolder::open_for((tmp / "home/out/r.json").string(), false);
      REQUIRE(folder);
      REQUIRE(folder->replace(0600, fill_with("{}\n")));
      CHECK(fs::exists(tmp / "real/r.json"));
    }
    SUBCASE("another user's folder itself, reached without a link, is written as asked") {
      REQUIRE(write_output((tmp / "home/r.json").string(), "{}\n", 0600));
      CHECK(fs::exists(tmp / "home/r.json"));
    }
    SUBCASE("links of root's, relative and absolute, in root's folders") {
      fs::create_symlink("real", tmp / "rel");
      fs::create_symlink(tmp / "real", tmp / "abs");
      REQUIRE(write_output((tmp / "rel/a.json").string(), "a\n", 0600));
      REQUIRE(write_output((tmp / "abs/b.json").string(), "b\n", 0600));
      CHECK(test::slurp(tmp / "real/a.json") == "a\n");
      CHECK(test::slurp(tmp / "real/b.json") == "b\n");
    }
    SUBCASE("a link in a sticky folder is its owner's to replace") {
      fs::create_directories(tmp / "sticky");
      REQUIRE(::chmod((tmp / "sticky").c_str(), 01777) == 0);
      fs::create_symlink(tmp / "real", tmp / "sticky/roots");
      REQUIRE(write_output((tmp / "sticky/roots/a.json").string(), "a\n", 0600));
      fs::create_symlink(tmp / "real", tmp / "sticky/theirs");
      REQUIRE(::lchown((tmp / "sticky/theirs").c_str(), k_stranger, 0) == 0);
      auto refused = write_output((tmp / "sticky/theirs/b.json").string(), "b\n", 0600);
      REQUIRE_FALSE(refused);
      CHECK(refused.error().find("the link is owned by 64123") != std::string::npos);
      CHECK_FALSE(fs::exists(tmp / "real/b.json"));
    }
    SUBCASE("a link in a folder below another user's, though root owns that folder") {
      fs::create_directories(tmp / "home/roots");
      fs::create_symlink(tmp / "real", tmp / "home/roots/out"); // they can rename `roots` away and back
      CHECK_FALSE(write_output((tmp / "home/roots/out/r.json").string(), "{}\n", 0600));
      CHECK(empty_folder(tmp / "real"));
    }
  }
}
