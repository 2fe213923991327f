// LiveView on this machine: what the collectors' threads get from it at the same time.
#include "system/live_view.hpp"
#include "unit/testutil.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

TEST_CASE("live view: group names stay right when many threads stat files of different groups") {
  // getgrgid's one static buffer, shared by threads, gave one file the group of another's.
  test::TempDir tmp("gpudoctor-live");
  const fs::path& dir = tmp.path();
  struct Owned {
    std::string path;
    std::string group;
  };
  std::vector<Owned> files;
  for (gid_t gid : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u}) {
    struct group* g = ::getgrgid(gid); // one thread here: the buffer is not shared yet
    if (!g) continue;
    std::string path = (dir / std::to_string(gid)).string();
    std::ofstream(path) << "x";
    if (::chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) continue; // not root: only our own groups
    files.push_back({path, g->gr_name});
  }
  if (files.size() < 2) {
    MESSAGE("fewer than two groups to chown to (not root): nothing to compare");
    return;
  }
  LiveView view;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3000; ++i) {
        const Owned& f = files[(t + static_cast<std::size_t>(i)) % files.size()];
        auto st = view.stat(f.path);
        if (!st || st->group != f.group) ++wrong;
      }
    });
  for (auto& th : threads)
    th.join();
  CHECK(wrong.load() == 0);
}
