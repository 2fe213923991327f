// The snapshot reader and the archive unpacker, the code that reads a bundle from someone else's machine,
// each with the invariants it must keep beyond "no crash, no exception": one table for the libFuzzer targets
// (fuzz_snapshot.cpp; fuzz/CMakeLists.txt makes one executable per entry, reading the names from lines
// starting with `  {"name",`) and for tests/security/test_snapshot_fuzz.cpp, which runs every entry over the
// seeds, their truncations and garbage in every ordinary build. No <expected> here (docs/fuzzing.md).
#pragma once

#include "system/path_walk.hpp"
#include "system/snapshot_json.hpp"
#include "util/json_value.hpp"
#include "util/text.hpp"
#include "util/unpack.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace gpudoctor::fuzz {

// A broken invariant throws: the unit test reports it with the target's name, libFuzzer as a crash.
inline void require_snapshot(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("invariant broken: ") + what);
}

// Our parser accepts exactly what nlohmann's accepts (within the limits), keeps the document order and
// reads back what it writes.
inline void check_json(std::string_view s) {
  Json j;
  std::string error;
  JsonLimits limits;
  limits.max_values = 20000;
  bool ok = parse_json_into(s, j, error, limits);
  bool limited =
      error.find("nested deeper") != std::string::npos || error.find("more than") != std::string::npos;
  if (!limited) require_snapshot(ok == Json::accept(s.begin(), s.end()), "accepts what nlohmann accepts");
  require_snapshot(ok || !error.empty(), "a refusal says why");
  if (!ok) return;
  Json again;
  require_snapshot(parse_json_into(dump_json(j), again, error), "reads back what it writes");
  require_snapshot(again == j, "round trip");
}

// Unpacks into a fresh folder below a private one, then walks the private one (never following a link):
// everything written is below dest/, every file is a plain file or folder or symlink with one link, and
// the limits hold.
inline void check_unpack(std::string_view s) {
  namespace fs = std::filesystem;
  static const fs::path base = [] {
    std::string tmpl = (fs::temp_directory_path() / "gpudoctor-fuzz-unpack-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    return fs::path(tmpl);
  }();
  // Registered once `base` is made, so it runs before `base` is destroyed.
  static const bool cleanup = std::atexit([] {
                                std::error_code ignored;
                                fs::remove_all(base, ignored);
                              }) == 0;
  (void)cleanup;
  fs::path dest = base / "dest";
  std::error_code ec;
  fs::remove_all(dest, ec);
  fs::create_directories(dest);
  ArchiveLimits limits;
  limits.max_total_bytes = 1 << 20; // small: gzip expands 1000-fold, and each input is unpacked
  limits.max_entry_bytes = 256 << 10;
  limits.max_entries = 2000;
  auto refused = unpack_archive_memory(s, dest, limits);
  std::uintmax_t bytes = 0, entries = 0;
  for (fs::recursive_directory_iterator it(base, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path& p = it->path();
    std::string rel = p.lexically_relative(dest).generic_string();
    require_snapshot(!rel.empty() && rel != ".." && !text::starts_with(rel, "../"),
                     "written below dest/ only");
    struct stat st {};
    require_snapshot(::lstat(p.c_str(), &st) == 0, "lstat");
    require_snapshot(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode), "file, folder, link");
    if (S_ISREG(st.st_mode)) {
      require_snapshot(st.st_nlink == 1, "no hard link");
      require_snapshot((st.st_mode & 07000) == 0, "no setuid, setgid or sticky bit");
      bytes += static_cast<std::uintmax_t>(st.st_size);
    }
    ++entries;
  }
  require_snapshot(!ec, "the unpacked tree can be walked");
  require_snapshot(bytes <= limits.max_total_bytes && entries <= limits.max_entries + 1, "limits hold");
  if (refused) require_snapshot(!refused->empty(), "a refusal says why");
  fs::remove_all(dest, ec);
  require_snapshot(!ec, "the unpacked tree can be removed");
}

// The input describes links ("/path -> target" lines, then the last line is the path to resolve).
inline void check_walk(std::string_view s) {
  std::map<std::string, std::string> links;
  auto lines = text::lines(s);
  if (lines.empty()) return;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i)
    if (auto arrow = lines[i].find(" -> "); arrow != std::string::npos)
      links[lines[i].substr(0, arrow)] = lines[i].substr(arrow + 4);
  int lookups = 0;
  auto look = [&](const std::vector<std::string>& parts) {
    ++lookups;
    std::string at = "/" + text::join(parts, "/");
    if (auto it = links.find(at); it != links.end()) return PathNode{true, it->second};
    return PathNode{true, std::nullopt};
  };
  auto parts = walk_path(lines.back(), true, look);
  require_snapshot(lookups <= 41 * static_cast<int>(k_max_walk_path), "bounded lookups");
  if (!parts) return;
  for (const auto& p : *parts)
    require_snapshot(!p.empty() && p != "." && p != ".." && p.find('/') == std::string::npos, "clean parts");
}

struct SnapshotTarget {
  const char* name;
  void (*run)(std::string_view);
};

// clang-format off
inline constexpr SnapshotTarget k_snapshot_targets[] = {
  {"snapshot_manifest", [](std::string_view s) {
     auto m = snapshot::read_manifest(s);
     require_snapshot(m.ok() || !m.error.empty(), "manifest error");
   }},
  {"snapshot_env", [](std::string_view s) {
     auto e = snapshot::read_env(s);
     require_snapshot(e.value.size() <= snapshot::k_max_env_entries, "env entries");
   }},
  {"snapshot_identity", [](std::string_view s) {
     auto id = snapshot::read_identity(s);
     require_snapshot(!id.ok() || id.value.groups.size() <= snapshot::k_max_groups, "groups");
   }},
  {"snapshot_stat", [](std::string_view s) {
     auto st = snapshot::read_stats(s);
     require_snapshot(st.value.size() <= snapshot::k_max_stat_entries, "stat entries");
     for (const auto& [path, entry] : st.value) require_snapshot(entry.mode <= 07777, "mode");
   }},
  {"snapshot_commands", [](std::string_view s) {
     auto c = snapshot::read_commands(s);
     require_snapshot(c.value.size() <= snapshot::k_max_commands, "commands");
     for (const auto& cmd : c.value) {
       require_snapshot(!cmd.result.key.empty(), "command key");
       for (const auto* f : {&cmd.out_file, &cmd.err_file}) {
         require_snapshot(f->empty() || (*f)[0] != '/', "output path relative");
         for (const auto& part : text::split(*f, '/')) require_snapshot(part != "..", "output path without ..");
       }
     }
   }},
  {"json_value", check_json},
  {"unpack_archive", check_unpack},
  {"path_walk", check_walk},
};
// clang-format on

} // namespace gpudoctor::fuzz
