// Variables the knowledge tables judge are never redacted by name, and a bundle concludes what the live run
// concluded (issue 9, item 4): redaction of a real fixture with secrets and GPU settings mixed in changes no
// check's id, subject or status.
#include "app/pipeline.hpp"
#include "app/snapshot_source.hpp"
#include "bundle/redact.hpp"
#include "security/redact_fixture.hpp"

#include <filesystem>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace gpudoctor;
using namespace gpudoctor::test;

namespace {

// A fixture copied into `snap` with `extra` merged into its environment.
void copy_fixture(const test::SnapshotDir& snap, const std::string& machine, const Json& extra) {
  fs::path src = fs::path(GPUDOCTOR_TEST_MACHINES) / machine / "snapshot";
  fs::remove_all(snap.dir());
  fs::copy(src, snap.dir(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  Json env = snap.json("env.json");
  for (const auto& [name, value] : extra.items())
    env[name] = value;
  snap.env(env);
}

} // namespace

TEST_SUITE("security") {

  TEST_CASE("redaction: no variable a knowledge table judges is redacted by its name") {
    const Knowledge& kb = loaded_data().kb;
    Json env = Json::object();
    for (const auto& row : kb.env.nccl_vars)
      env[row.name] = "1";
    for (const auto& row : kb.env.device_selection)
      env[row.name] = "0";
    for (const auto& name : kb.gpu_env_names)
      env[name] = "/opt/x";
    // Names of the judged families that the weaker secret patterns (*_KEY, *_AUTH*, *_PAT, *_PASS) match.
    for (const auto& prefix : kb.gpu_env_prefixes)
      for (const char* tail : {"CACHE_KEY", "IB_AUTH", "SEARCH_PAT", "BYPASS", "SORT_PASS"})
        env[prefix + tail] = "value-" + prefix;
    test::SnapshotDir snap;
    snap.env(env);
    redact_snapshot(snap.dir(), false);
    Json after = snap.json("env.json");
    for (const auto& [name, value] : env.items())
      CHECK_MESSAGE(after[name] == value, name << " became " << after[name].dump());
    // A judged family does not shield a name that says it holds a secret (no table judges its value).
    CHECK(is_secret_name("NVIDIA_API_KEY"));
    test::SnapshotDir named;
    named.env({{"NVIDIA_API_KEY", "canary-nvapi"}, {"TORCH_HUB_TOKEN", "canary-hub"}});
    redact_snapshot(named.dir(), false);
    CHECK(named.find("canary-nvapi").empty());
    CHECK(named.find("canary-hub").empty());
  }

  TEST_CASE("redaction: a bundle concludes what the live run concluded, secrets and GPU settings mixed") {
    const std::string token = "ghp_" + std::string("aB3dE5gH7jK9mN2pQ4sT6vW8yZaB3dE5gH7j");
    for (const char* machine : {"nvidia-8gpu-nccl-misconfigured", "amd-rx7900xtx-hsa-override-942"}) {
      CAPTURE(machine);
      Json extra = {{"NCCL_IB_HCA", "mlx5_0:1,mlx5_1:1"},
                    {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True,max_split_size_mb:128"},
                    {"NCCL_IB_PKEY", "0x1"},
                    {"CUDA_VISIBLE_DEVICES", "0,1"},
                    {"HF_TOKEN", "canary-hf"},
                    {"DB_PWD", "canary-pwd"},
                    {"NCCL_NET_GDR_LEVEL", token}}; // a secret's shape where a setting belongs
      test::SnapshotDir snap;
      copy_fixture(snap, machine, extra);
      auto before = judge(snap.dir());
      redact_snapshot(snap.dir(), false);
      auto after = judge(snap.dir());
      Json env = snap.json("env.json");
      for (const char* name :
           {"NCCL_IB_HCA", "PYTORCH_CUDA_ALLOC_CONF", "NCCL_IB_PKEY", "CUDA_VISIBLE_DEVICES"})
        CHECK_MESSAGE(env[name] == extra[name], name);
      CHECK(snap.find("canary-hf").empty());
      CHECK(snap.find(token).empty());
      REQUIRE(after.size() == before.size());
      for (std::size_t i = 0; i < before.size(); ++i) {
        CAPTURE(before[i].id);
        CHECK(after[i].id == before[i].id);
        CHECK(after[i].subject == before[i].subject);
        CHECK(status_name(after[i].status) == status_name(before[i].status));
      }
    }
  }

} // TEST_SUITE
