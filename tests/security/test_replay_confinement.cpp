// Replay reads only the snapshot: every path component from the snapshot root down, fs/ included, is
// resolved inside it (docs/security.md). tests/security/replay_confinement.sh covers the same through the
// command line, bundles included.
#include "system/replay_view.hpp"
#include "unit/testutil.hpp"
#include "util/file_text.hpp"

#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

// A temporary folder with a snapshot (snap/) and a folder outside it holding a canary.
struct Scene {
  test::TempDir tmp{"gpudoctor-confine"};
  const fs::path& dir = tmp.path();
  Scene() {
    fs::create_directories(dir / "snap");
    fs::create_directories(dir / "outside/etc");
    REQUIRE(
        write_whole_file(dir / "snap/manifest.json", R"({"format": "gpudoctor-snapshot", "version": 1})"));
    REQUIRE(write_whole_file(dir / "outside/etc/os-release", "ID=canary\n"));
  }
  fs::path snap() const { return dir / "snap"; }
};

} // namespace

TEST_SUITE("security") {
  TEST_CASE("a snapshot whose fs/ is a symlink is refused, absolute or relative") {
    for (std::string target :
         {std::string("/"), std::string("../outside"), std::string("../../../../../..")}) {
      CAPTURE(target);
      Scene s;
      if (target == "/") target = (s.dir / "outside").string();
      fs::create_symlink(target, s.snap() / "fs");
      auto view = ReplayView::open(s.snap());
      REQUIRE_FALSE(view);
      CHECK(view.error().find("fs") != std::string::npos);
    }
  }

  TEST_CASE("a snapshot whose fs is not a folder is refused") {
    Scene s;
    REQUIRE(write_whole_file(s.snap() / "fs", "not a folder"));
    CHECK_FALSE(ReplayView::open(s.snap()));
  }

  TEST_CASE("a symlinked folder below fs/ resolves inside fs/") {
    Scene s;
    fs::create_directories(s.snap() / "fs/inside");
    REQUIRE(write_whole_file(s.snap() / "fs/inside/os-release", "ID=inside\n"));
    fs::create_symlink(s.dir / "outside/etc", s.snap() / "fs/etc"); // absolute: re-rooted at fs/
    fs::create_symlink("../../outside/etc", s.snap() / "fs/etc2");  // relative: .. stops at fs/
    fs::create_symlink("/inside", s.snap() / "fs/etc3");            // inside: followed
    auto view = ReplayView::open(s.snap());
    REQUIRE(view);
    CHECK_FALSE((*view)->read_file("/etc/os-release"));
    CHECK_FALSE((*view)->read_file("/etc2/os-release"));
    CHECK_FALSE((*view)->list_dir("/etc"));
    CHECK_FALSE((*view)->stat("/etc2/os-release"));
    CHECK((*view)->read_file("/etc3/os-release") == "ID=inside\n");
  }
}
