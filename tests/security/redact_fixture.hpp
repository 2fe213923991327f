// A throwaway snapshot folder for the redaction and obfuscation tests: files written where a recording
// would put them, and a search of every byte below it (names, link targets, contents) for a canary; and the
// judgement of a snapshot, to compare before and after redaction.
#pragma once

#include "unit/testutil.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace gpudoctor::test {

class SnapshotDir {
public:
  SnapshotDir() : m_dir(m_temp.path()) {
    std::filesystem::create_directories(m_dir / "fs");
    write("manifest.json", R"({"format": "gpudoctor-snapshot", "version": 1, "origin": "fixture"})");
  }

  const std::filesystem::path& dir() const { return m_dir; }

  // `rel` relative to the snapshot root ("env.json", "fs/etc/pip.conf").
  void write(const std::string& rel, const std::string& content) const {
    std::filesystem::create_directories((m_dir / rel).parent_path());
    REQUIRE(write_whole_file(m_dir / rel, content));
  }
  void link(const std::string& rel, const std::string& target) const {
    std::filesystem::create_directories((m_dir / rel).parent_path());
    std::filesystem::create_symlink(target, m_dir / rel);
  }
  std::string read(const std::string& rel) const { return read_whole_file(m_dir / rel).value_or(""); }
  Json json(const std::string& rel) const { return parse_json(read(rel)).value_or(Json()); }
  void env(const Json& vars) const { write("env.json", dump_json(vars)); }
  void identity(const std::string& user, const std::string& home, const std::string& host,
                unsigned uid = 1000) const {
    Json id = {{"user", user},  {"uid", uid},   {"gid", uid},      {"groups", Json::array({user})},
               {"gids", {uid}}, {"home", home}, {"hostname", host}};
    write("identity.json", dump_json(id));
  }

  // Every place below the snapshot that holds `needle`: relative names, link targets and file contents.
  std::vector<std::string> find(const std::string& needle) const {
    std::vector<std::string> hits;
    for (auto it = std::filesystem::recursive_directory_iterator(m_dir);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      std::string rel = it->path().lexically_relative(m_dir).generic_string();
      if (rel.find(needle) != std::string::npos) hits.push_back("name " + rel);
      if (it->is_symlink()) {
        if (std::filesystem::read_symlink(it->path()).string().find(needle) != std::string::npos)
          hits.push_back("link " + rel);
      } else if (it->is_regular_file() &&
                 read_whole_file(it->path()).value_or("").find(needle) != std::string::npos) {
        hits.push_back("content " + rel);
      }
    }
    return hits;
  }

private:
  TempDir m_temp{"gpudoctor-sec"};
  const std::filesystem::path& m_dir;
};

// What `check --from` concludes about a snapshot folder.
inline std::vector<Result> judge(const std::filesystem::path& snapshot) {
  return judged_snapshot(snapshot).results;
}

} // namespace gpudoctor::test
