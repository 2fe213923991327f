// The extension collector over a real folder tree: a compiled extension's DT_NEEDED read from the ELF headers
// live, recorded as the summary elf-needed@<path> (never the library itself), and replayed from that record.
#include "collect/collectors.hpp"
#include "system/live_view.hpp"
#include "system/recording_view.hpp"
#include "system/replay_view.hpp"
#include "unit/testutil.hpp"
#include "util/json.hpp"

#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace fs = std::filesystem;

namespace {

const Knowledge& knowledge() {
  static const Knowledge kb = [] {
    auto k = load_knowledge();
    if (!k) FAIL("knowledge: " << k.error());
    return *k;
  }();
  return kb;
}

PythonFacts one_env(const std::string& site) {
  PythonFacts p;
  PythonEnv env;
  env.role = "VIRTUAL_ENV";
  env.executable = "/venv/bin/python3";
  env.distributions.push_back({"bitsandbytes", "0.43.3", site, "bitsandbytes-0.43.3.dist-info"});
  p.envs.push_back(env);
  return p;
}

} // namespace

TEST_CASE("collect: an extension's DT_NEEDED is read live, recorded as a summary, and replayed") {
  test::TempDir tmp("gpudoctor-layer");
  const fs::path root = tmp / "root";
  const std::string site = "/venv/lib/python3.12/site-packages";
  fs::create_directories(root / ("." + site + "/bitsandbytes"));
  fs::create_directories(root / ("." + site + "/bitsandbytes-0.43.3.dist-info"));
  fs::copy_file(fs::path(GPUDOCTOR_SOURCE_DIR) / "fuzz/seeds/elf-tiny-lib.so",
                root / ("." + site + "/bitsandbytes/libbitsandbytes_cuda121.so"));
  std::ofstream(root / ("." + site + "/bitsandbytes/__init__.py")) << "";
  std::ofstream(root / ("." + site + "/bitsandbytes-0.43.3.dist-info/METADATA"))
      << "Metadata-Version: 2.1\nName: bitsandbytes\nRequires-Dist: torch\n\n";
  const std::string lib = site + "/bitsandbytes/libbitsandbytes_cuda121.so";

  LiveView live(root.string());
  const fs::path snap = tmp / "snapshot";
  PythonFacts recorded = one_env(site);
  {
    RecordingView rec(live, snap, "gpudoctor test");
    collect_python_extensions(rec, knowledge(), recorded);
    rec.finish(snapshot::Manifest{"2026-12-01T00:00:00Z", "gpudoctor test", "live", {}, ""});
  }
  REQUIRE(recorded.envs[0].extensions.size() == 1);
  const auto& x = recorded.envs[0].extensions[0];
  REQUIRE(x.libraries.size() == 1);
  CHECK(x.libraries[0].path == lib);
  REQUIRE(x.libraries[0].needed);
  CHECK(*x.libraries[0].needed == std::vector<std::string>{"libm.so.6", "libc.so.6"});
  CHECK(x.requires_torch == std::vector<std::string>{""});

  // The snapshot holds the summary under its key, and not the library: the listing's entry is empty.
  auto commands = parse_json(test::slurp(snap / "commands.json"));
  REQUIRE(commands);
  bool keyed = false;
  for (const auto& c : *commands)
    keyed = keyed || c.value("key", "") == "elf-needed@" + lib;
  CHECK(keyed);
  REQUIRE(fs::exists(snap / ("fs" + lib)));
  CHECK(fs::file_size(snap / ("fs" + lib)) == 0);
  CHECK(fs::exists(snap / ("fs" + site + "/bitsandbytes-0.43.3.dist-info/METADATA")));

  // Replay answers from the record, reading nothing else.
  auto replay = ReplayView::open(snap);
  REQUIRE(replay);
  CHECK_FALSE((*replay)->read_range(lib, 0, 64));
  PythonFacts replayed = one_env(site);
  collect_python_extensions(**replay, knowledge(), replayed);
  REQUIRE(replayed.envs[0].extensions.size() == 1);
  REQUIRE(replayed.envs[0].extensions[0].libraries.size() == 1);
  CHECK(replayed.envs[0].extensions[0].libraries[0].needed == x.libraries[0].needed);
}

TEST_CASE("record: the environment and identity are written once, at the first question") {
  // Collectors ask for single variables hundreds of times: each used to copy the environment and rewrite
  // env.json (issue 31's per-call costs).
  test::TempDir tmp("gpudoctor-env-once");
  LiveView live;
  RecordingView rec(live, tmp / "snapshot", "gpudoctor test");
  const fs::path env_json = tmp / "snapshot" / "env.json";
  CHECK_FALSE(fs::exists(env_json));
  CHECK(rec.env("PATH") == live.env("PATH")); // one variable asked: the whole environment is recorded
  REQUIRE(fs::exists(env_json));
  auto recorded = parse_json(test::slurp(env_json));
  REQUIRE(recorded);
  CHECK(recorded->size() == live.environment().size());
  fs::remove(env_json);
  for (int i = 0; i < 100; ++i)
    CHECK(rec.env("HOME") == live.env("HOME"));
  CHECK(rec.environment() == live.environment());
  CHECK_FALSE(fs::exists(env_json)); // not written again
  rec.identity();
  const fs::path identity_json = tmp / "snapshot" / "identity.json";
  REQUIRE(fs::exists(identity_json));
  fs::remove(identity_json);
  rec.identity();
  CHECK_FALSE(fs::exists(identity_json));
}
