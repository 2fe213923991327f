// The one symlink walk (system/path_walk) that the recorder and the replay share.
#include "system/path_walk.hpp"
#include "util/text.hpp"

#include <map>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// A tree given as the set of its locations and its links (location -> target), for walk_path to look up.
struct Tree {
  std::set<std::string> places;
  std::map<std::string, std::string> links;
  std::vector<std::string> asked;

  PathLookup lookup() {
    return [this](const std::vector<std::string>& parts) {
      std::string at = "/" + text::join(parts, "/");
      asked.push_back(at);
      if (auto it = links.find(at); it != links.end()) return PathNode{true, it->second};
      return PathNode{places.count(at) > 0, std::nullopt};
    };
  }
  std::optional<std::string> walk(const std::string& path, bool follow_final = true) {
    auto parts = walk_path(path, follow_final, lookup());
    if (!parts) return std::nullopt;
    return "/" + text::join(*parts, "/");
  }
};

} // namespace

TEST_CASE("walk_path follows links as the kernel would, inside the root") {
  Tree t;
  t.places = {"/sys", "/sys/devices", "/sys/devices/pci0", "/sys/devices/pci0/vendor", "/etc", "/etc/x"};
  t.links = {{"/sys/bus", "devices"},     {"/sys/abs", "/etc"},   {"/sys/up", "../../../../etc"},
             {"/sys/loop", "/sys/loop2"}, {"/sys/loop2", "loop"}, {"/sys/devices/dev", "pci0"}};
  CHECK(t.walk("/sys/bus/pci0/vendor") == "/sys/devices/pci0/vendor");
  CHECK(t.walk("/sys/abs/x") == "/etc/x"); // an absolute target restarts at the root
  CHECK(t.walk("/sys/up/x") == "/etc/x");  // ".." stops at the root
  CHECK(t.walk("/../../etc/./x") == "/etc/x");
  CHECK_FALSE(t.walk("/sys/loop/x"));                             // links that loop
  CHECK_FALSE(t.walk("/sys/none/x"));                             // an absent component
  CHECK(t.walk("/sys/devices/dev", false) == "/sys/devices/dev"); // a final link kept
  CHECK(t.walk("/sys/devices/dev", true) == "/sys/devices/pci0");
  CHECK(t.walk("/") == "/");
}

TEST_CASE("walk_path refuses paths and link targets longer than PATH_MAX") {
  Tree t;
  t.places = {"/a"};
  t.links = {{"/long", std::string(5000, 'a')}};
  CHECK_FALSE(t.walk("/" + std::string(5000, 'a')));
  CHECK_FALSE(t.walk("/long"));
  std::string many;
  for (int i = 0; i < 800; ++i)
    many += "/a/..";
  CHECK(t.walk(many + "/a") == "/a"); // long, but under PATH_MAX
}
