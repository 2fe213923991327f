// A throwaway snapshot folder for the redaction and obfuscation tests: files written where a recording
// would put them, and a search of every byte below it (names, link targets, contents) for a canary; and the
// judgement of a snapshot, to compare before and after redaction.
#pragma once

#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"

#include <atomic>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <doctest/doctest.h>

namespace gpudoctor::test {

class SnapshotDir {
public:
  SnapshotDir() {
    static std::atomic<int> counter{0};
    m_dir = std::filesystem::temp_directory_path() /
            ("gpudoctor-sec-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir / "fs");
    write("manifest.json", R"({"format": "gpudoctor-snapshot", "version": 1, "origin": "fixture"})");
  }
  ~SnapshotDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
  }
  SnapshotDir(const SnapshotDir&) = delete;
  SnapshotDir& operator=(const SnapshotDir&) = delete;

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
  std::filesystem::path m_dir;
};

// The built-in knowledge and catalogues, loaded once.
inline const Loaded& loaded_data() {
  static const Loaded loaded = [] {
    auto d = load_data(CheckOptions{});
    REQUIRE_MESSAGE(d.has_value(), (d ? std::string() : d.error().message));
    return std::move(*d);
  }();
  return loaded;
}

// What `check --from` concludes about a snapshot folder.
inline std::vector<Result> judge(const std::filesystem::path& snapshot) {
  auto opened = OpenedSnapshot::open(snapshot);
  REQUIRE_MESSAGE(opened.has_value(), (opened ? std::string() : opened.error()));
  return run_pipeline((*opened)->view(), loaded_data(), CheckOptions{}).results;
}

} // namespace gpudoctor::test
