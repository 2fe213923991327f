// system/config_files: the one table of the machine's configuration files. What the checks read, what
// redaction knows the syntax of and what the fix scripts clean all come from it, so they cannot disagree
// (as ~/.zshenv, once cleaned by the fixes but never read, and /etc/zsh/zshenv, once redacted only, did).
#include "bundle/redact_config.hpp"
#include "collect/collectors.hpp"
#include "fix/render.hpp"
#include "system/config_files.hpp"
#include "system/live_view.hpp"
#include "system/shell_profiles.hpp"
#include "testutil.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

const std::string k_home = "/home/ada";

// A row as one file on a machine: a folder row as a file of its folder with its suffix.
std::string sample_file(const ConfigFile& row) {
  if (auto folder = config_folder(row))
    return std::string(folder->folder) + "/gpu" + std::string(folder->suffix);
  return row.in_home ? in_home(k_home, row) : std::string(row.path);
}

// Every row of `use` as a file on a machine, and beside a folder row's file one without its suffix.
std::vector<std::string> machine_files(ConfigUse use) {
  std::vector<std::string> out;
  for (const auto& row : config_files()) {
    if (row.use != use) continue;
    out.push_back(sample_file(row));
    if (auto folder = config_folder(row)) out.push_back(std::string(folder->folder) + "/notes.txt");
  }
  return out;
}

std::set<std::string> read_by_checks(MemView& view) {
  std::set<std::string> read;
  for (const auto& p : read_shell_profiles(view, k_home).files)
    read.insert(p.path);
  EnvFacts env;
  collect_nccl_conf(view, {}, k_home, env);
  for (const auto& f : env.nccl_conf)
    read.insert(f.path);
  return read;
}

} // namespace

TEST_CASE("config files: the checks read every profile and NCCL file the fixes clean, and only those") {
  MemView view;
  for (ConfigUse use : {ConfigUse::profile, ConfigUse::nccl, ConfigUse::pip, ConfigUse::csh})
    for (const auto& file : machine_files(use))
      view.files[file] = "export CUDA_HOME=/usr/local/cuda\n";
  std::set<std::string> cleaned;
  for (const auto& row : config_files()) {
    CAPTURE(row.path);
    // A profile or NCCL file the checks read and the fixes leave is the disagreement this table ends.
    CHECK(row.cleaned == (row.use == ConfigUse::profile || row.use == ConfigUse::nccl));
    if (row.cleaned) cleaned.insert(sample_file(row));
  }
  CHECK(read_by_checks(view) == cleaned);
  CHECK(cleaned.count(k_home + "/.zshenv"));
  CHECK(cleaned.count("/etc/zsh/zshenv"));
}

TEST_CASE("config files: redaction reads each file of the table in its syntax") {
  for (const auto& row : config_files()) {
    std::string path = sample_file(row);
    CAPTURE(path);
    auto kind = config_kind(path.substr(1));
    REQUIRE(kind);
    ConfigKind expected = row.format == ConfigFormat::json  ? ConfigKind::json
                          : row.format == ConfigFormat::ini ? ConfigKind::ini
                                                            : ConfigKind::shell;
    CHECK(*kind == expected);
  }
  CHECK(config_kind("etc/profile.d/notes.txt") == ConfigKind::shell); // the folder's other files too
  CHECK_FALSE(config_kind("etc/hostname"));
}

TEST_CASE("config files: a script's gd_profile_files lists the table's files that exist, and nothing else") {
  TempDir root;
  // The script's arrays as gpudoctor renders them, with the system paths moved below the temporary root.
  std::string vars = fix::profile_file_vars();
  std::string moved;
  for (const auto& line : text::lines(vars)) {
    std::string l = line;
    for (const std::string_view start : {"  /etc/", "  '/etc/"}) {
      if (text::starts_with(l, start)) {
        std::size_t slash = l.find('/');
        l = l.substr(0, slash) + root.path().string() + l.substr(slash);
      }
    }
    moved += l + "\n";
  }
  for (const auto& row : config_files())
    if (row.cleaned)
      CHECK_MESSAGE(text::contains(vars, std::string(row.path)), row.path << " is not in the script");
  std::set<std::string> expected;
  for (ConfigUse use : {ConfigUse::profile, ConfigUse::nccl, ConfigUse::pip})
    for (const auto& file : machine_files(use)) {
      std::filesystem::path at = root.path().string() + file;
      std::filesystem::create_directories(at.parent_path());
      std::ofstream(at) << "X=1\n";
      if (use != ConfigUse::pip && !text::ends_with(file, "notes.txt")) expected.insert(at.string());
    }
  LiveView live;
  std::string script = moved + "source \"$1\"\ngd_profile_files --system \"$2\"\n";
  CommandResult r =
      live.run({"gd-profile-files",
                {"bash", "-c", "set -euo pipefail\n" + script, "bash",
                 std::string(GPUDOCTOR_SOURCE_DIR) + "/fixes/lib.bash", root.path().string() + k_home},
                std::chrono::milliseconds(20000),
                {}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto listed = text::lines(r.out);
  CHECK(std::set<std::string>(listed.begin(), listed.end()) == expected);
  CHECK(listed.size() == expected.size()); // each once
}
