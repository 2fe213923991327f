// What the unit and security tests share: a per-case temporary folder, reading a file whole, an in-memory
// machine that records what was read, the built-in data loaded once, and a snapshot judged as `check --from`
// judges it.
#pragma once

#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "system/system_view.hpp"
#include "util/text.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace gpudoctor::test {

// A fresh folder under the temporary directory (or `base`), unique per case (mkdtemp), removed with what it
// holds.
class TempDir {
public:
  explicit TempDir(const std::string& prefix = "gpudoctor-test", const std::filesystem::path& base = {}) {
    std::filesystem::path in = base.empty() ? std::filesystem::temp_directory_path() : base;
    std::string templ = (in / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(templ.data())) FAIL("mkdtemp " << templ << " failed");
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
  std::filesystem::path path_;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& content) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

// The built-in knowledge and catalogue, loaded once for the whole run.
inline const Loaded& loaded_data() {
  static const Loaded data = [] {
    auto loaded = load_data(CheckOptions{});
    if (!loaded) FAIL("built-in data does not load: " << loaded.error().message);
    return std::move(*loaded);
  }();
  return data;
}
inline const Knowledge& kb() {
  return loaded_data().kb;
}
inline const Catalogue& catalogue() {
  return loaded_data().cat;
}

// What `check --from` reports about a snapshot (a folder or a .tar.gz), with the built-in data.
// run_pipeline's report, which the test requires it to make.
inline Report judged_by(SystemView& view, const CheckOptions& opt = {}, const Stacks* stacks = nullptr) {
  auto report = run_pipeline(view, loaded_data(), opt, stacks);
  REQUIRE_MESSAGE(report.has_value(), (report ? std::string() : report.error().message));
  return std::move(*report);
}

// What `check --from` reports about a snapshot (a folder or a .tar.gz), with the built-in data.
inline Report judged_snapshot(const std::filesystem::path& snapshot, const CheckOptions& opt = {}) {
  auto opened = OpenedSnapshot::open(snapshot);
  REQUIRE_MESSAGE(opened.has_value(), snapshot.string() << ": " << (opened ? std::string() : opened.error()));
  return judged_by((*opened)->view(), opt);
}

// The folder of a machine fixture: tests/machines/<name>.
inline std::filesystem::path machine_dir(const std::string& name) {
  return std::filesystem::path(GPUDOCTOR_TEST_MACHINES) / name;
}

// What `check --from` reports about the machine fixture tests/machines/<name>/snapshot.
inline Report judged_machine(const std::string& name) {
  return judged_snapshot(machine_dir(name) / "snapshot");
}

// A machine in memory: files, folders (implied by the files below them, or declared), links, metadata
// (`stats`: a device node's mode and owner, for the collectors that decide from it) and command outputs by
// key. Every path read is recorded in `reads`, so a test can say what a collector looked at. The one fake
// view of the tests: a test that needs another answer overrides the call it is about.
class MemView : public SystemView {
public:
  std::map<std::string, std::string> files, links;
  std::set<std::string> dirs;
  std::map<std::string, FileStat> stats; // what stat answers for a path, before files and folders
  std::map<std::string, CommandResult> commands;
  std::map<std::string, std::string> env;
  Identity who;

  Kind view_kind = Kind::replay; // no network probing, as for a snapshot
  std::vector<std::string> reads;

  std::optional<std::string> read_file(const std::string& path) override {
    {
      std::lock_guard lock(reads_mutex);
      reads.push_back(path);
    }
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::vector<std::string>> list_dir(const std::string& path) override {
    std::set<std::string> names;
    bool found = dirs.count(path) > 0;
    std::string prefix = path + "/";
    auto collect = [&](const std::string& p) {
      if (!text_starts(p, prefix)) return;
      found = true;
      std::string rest = p.substr(prefix.size());
      names.insert(rest.substr(0, rest.find('/')));
    };
    for (const auto& [p, content] : files)
      collect(p);
    for (const auto& p : dirs)
      collect(p);
    for (const auto& [p, target] : links)
      collect(p);
    for (const auto& [p, st] : stats)
      collect(p);
    if (!found) return std::nullopt;
    return std::vector<std::string>(names.begin(), names.end());
  }
  std::optional<std::string> read_link(const std::string& path) override {
    auto it = links.find(path);
    if (it == links.end()) return std::nullopt;
    return it->second;
  }
  std::optional<FileStat> stat(const std::string& path) override {
    std::string p = resolve(path);
    if (auto it = stats.find(p); it != stats.end()) return it->second;
    FileStat st;
    if (files.count(p)) {
      st.type = FileType::file;
      return st;
    }
    if (dirs.count(p) || list_dir(p)) {
      st.type = FileType::dir;
      return st;
    }
    return std::nullopt;
  }
  CommandResult run(const CommandSpec& spec) override {
    auto it = commands.find(spec.key);
    if (it != commands.end()) return it->second;
    CommandResult r;
    r.key = spec.key;
    r.found = false;
    r.exit_code = 127;
    return r;
  }
  std::map<std::string, std::string> environment() override { return env; }
  Identity identity() override { return who; }
  Kind kind() const override { return view_kind; }

  // A command that ran and answered.
  static CommandResult answered(const std::string& key, const std::string& out, int exit_code = 0,
                                const std::string& err = "") {
    CommandResult r;
    r.key = key;
    r.found = true;
    r.exit_code = exit_code;
    r.out = out;
    r.err = err;
    return r;
  }
  void command(const std::string& key, const std::string& out, int exit_code = 0,
               const std::string& err = "") {
    commands[key] = answered(key, out, exit_code, err);
  }

private:
  std::mutex reads_mutex; // collectors read in parallel, as collect_all runs them

  // Links followed in every component, as the kernel does.
  std::string resolve(std::string path) const {
    for (int hop = 0; hop < 16; ++hop) {
      std::string prefix;
      bool changed = false;
      for (const auto& part : text::split(path, '/')) {
        prefix += "/" + part;
        if (auto it = links.find(prefix); it != links.end()) {
          path = it->second + path.substr(prefix.size());
          changed = true;
          break;
        }
      }
      if (!changed) break;
    }
    return path;
  }
  static bool text_starts(const std::string& s, const std::string& p) {
    return s.compare(0, p.size(), p) == 0;
  }
};

} // namespace gpudoctor::test
