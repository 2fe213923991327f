// The environment-variable knowledge: nccl.yaml, pytorch_env.yaml, env.yaml's device_selection
// (knowledge_env.hpp).
#include "knowledge/knowledge.hpp"
#include "testutil.hpp"
#include "unit/testutil.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

// What the loader says of a knowledge folder holding one file (with the sources it cites).
std::string error_of(const std::string& file, const std::string& content) {
  test::TempDir dir("gpudoctor-kbenv");
  test::write_text(dir / file, "sources:\n  NCCL-ENV: \"env.rst\"\n" + content);
  auto k = load_knowledge(dir.path().string());
  return k ? "(loaded)" : k.error();
}

using test::kb;

void cited(const std::string& source) {
  CAPTURE(source);
  REQUIRE_FALSE(source.empty());
  for (const auto& key : text::split(source, ','))
    CHECK(kb().sources.count(text::trim(key)) == 1);
}

} // namespace

TEST_CASE("knowledge: environment tables load, every row cited") {
  const EnvKnowledge& e = kb().env;
  CHECK(e.nccl_vars.size() >= 150);
  CHECK(e.nccl_prefixes.size() == 4);
  CHECK(e.nccl_foreign.size() == 3);
  CHECK(e.nccl_risky.size() >= 15);
  CHECK(e.alloc_options.size() >= 9);
  CHECK(e.device_selection.size() == 4);
  for (const auto& r : e.nccl_vars)
    cited(r.source);
  for (const auto& r : e.nccl_prefixes)
    cited(r.source);
  for (const auto& r : e.nccl_foreign)
    cited(r.source);
  for (const auto& r : e.nccl_risky)
    cited(r.source);
  for (const auto& r : e.alloc_options)
    cited(r.source);
  for (const auto& r : e.device_selection)
    cited(r.source);
  CHECK(e.vendor_variables.size() >= 15);
  for (const auto& r : e.vendor_variables) {
    cited(r.source);
    // One table per variable: a device-selection one is judged by its own rules (HIP honours
    // CUDA_VISIBLE_DEVICES), so it is never also a vendor variable.
    CHECK_MESSAGE(e.device_selection_var(r.name) == nullptr, r.name);
  }
  // Every risky setting is a variable NCCL knows, and its numeric thresholds belong to numeric variables.
  for (const auto& r : e.nccl_risky) {
    CAPTURE(r.name);
    const NcclVarRow* v = e.nccl_var(r.name);
    REQUIRE(v != nullptr);
    if (r.below || r.above) CHECK(v->kind == "int");
  }
  // The same folder read from disk gives the same tables.
  auto d = load_knowledge(GPUDOCTOR_SOURCE_DIR "/checks/knowledge");
  REQUIRE_MESSAGE(d, (d ? "" : d.error()));
  CHECK(d->env.nccl_vars.size() == e.nccl_vars.size());
  CHECK(d->env.alloc_options.size() == e.alloc_options.size());
}

TEST_CASE("knowledge: NCCL variable spot checks") {
  const EnvKnowledge& e = kb().env;
  const NcclVarRow* level = e.nccl_var("NCCL_P2P_LEVEL");
  REQUIRE(level != nullptr);
  CHECK(level->kind == "level");
  CHECK(level->case_sensitive);
  CHECK(std::ranges::find(level->values, "PHB") != level->values.end());
  const NcclVarRow* debug = e.nccl_var("NCCL_DEBUG");
  REQUIRE(debug != nullptr);
  CHECK(debug->kind == "enum");
  CHECK_FALSE(debug->case_sensitive);
  REQUIRE(e.nccl_var("NCCL_ALGO") != nullptr);
  CHECK(e.nccl_var("NCCL_ALGO")->functions.size() >= 5);
  REQUIRE(e.nccl_var("NCCL_LL_THRESHOLD") != nullptr);
  CHECK(e.nccl_var("NCCL_LL_THRESHOLD")->removed == "2.5");
  CHECK(e.nccl_var("NCCL_MAX_NCHANNELS")->replaced_by == "NCCL_MAX_CTAS");
  CHECK(e.nccl_var("NCCL_IB_RETRY_CNT")->max == 7);
  CHECK(e.nccl_var("NCCL_IB_GID_INDEX")->min == -1);
  CHECK(e.nccl_var("NCCL_SHM_MEMCPY_MODE")->rccl_only);
  CHECK_FALSE(e.nccl_var("NCCL_COMM_ID")->documented);
  CHECK(e.nccl_var("NCCL_DEBUG_SUBSYS")->uncertain);
  CHECK(e.nccl_var("NCCL_NOPE") == nullptr);
  REQUIRE(e.nccl_prefix("NCCL_GIN_ENABLE") != nullptr);
  CHECK(e.nccl_prefix("NCCL_GIN_") == nullptr); // the prefix alone is no name
  REQUIRE(e.nccl_foreign_name("NCCL_VERSION") != nullptr);
  CHECK(e.nccl_foreign_name("NCCL_BLOCKING_WAIT")->replaced_by == "TORCH_NCCL_BLOCKING_WAIT");

  auto near = e.nccl_closest("NCCL_IB_DISABEL", 3);
  REQUIRE_FALSE(near.empty());
  CHECK(near.front() == "NCCL_IB_DISABLE");
  CHECK(e.nccl_closest("NCCL_P2P_DISBLE", 2).front() == "NCCL_P2P_DISABLE");
  // Removed knobs are never suggested.
  for (const auto& n : e.nccl_closest("NCCL_LL_THRESHOLDS", 3))
    CHECK(n != "NCCL_LL_THRESHOLD");
  CHECK(e.nccl_closest("COMPLETELY_DIFFERENT", 2).empty());
}

TEST_CASE("knowledge: allocator options, device selection, ROCm wheel targets") {
  const EnvKnowledge& e = kb().env;
  REQUIRE(e.alloc_option("expandable_segments") != nullptr);
  CHECK(e.alloc_option("expandable_segments")->kind == "bool");
  CHECK(e.alloc_option("max_split_size_mb")->min == 20);
  CHECK(e.alloc_option("roundup_power2_divisions")->kind == "divisions");
  CHECK(e.alloc_option("garbage_collection_threshold")->kind == "fraction");
  CHECK(e.alloc_option("expandable_segment") == nullptr);
  CHECK(e.alloc_closest("expandable_segment", 3).front() == "expandable_segments");

  REQUIRE(e.vendor_variable("HSA_OVERRIDE_GFX_VERSION_2") != nullptr); // a per-node form, by the prefix row
  CHECK(e.vendor_variable("HSA_OVERRIDE_GFX_VERSION_2")->vendor == "amd");
  CHECK(e.vendor_variable("HSA_ENABLE_SDMA_X") == nullptr); // not a prefix row
  CHECK(e.vendor_variable("CUDA_VISIBLE_DEVICES") == nullptr);
  REQUIRE(e.device_selection_var("CUDA_VISIBLE_DEVICES") != nullptr);
  CHECK(e.device_selection_var("CUDA_VISIBLE_DEVICES")->vendor == "nvidia");
  CHECK(e.device_selection_var("ROCR_VISIBLE_DEVICES")->vendor == "amd");
  CHECK(e.device_selection_var("HIP_VISIBLE_DEVICES")->vendor == "amd");
  CHECK(e.device_selection_var("PATH") == nullptr);
}

TEST_CASE("knowledge: malformed environment rows give an error with file and line") {
  struct Case {
    const char *rows, *says;
  };
  for (auto c : {
           Case{"nccl_vars:\n  - {name: NCCL_X, kind: number, source: NCCL-ENV}\n", "'kind'"},
           Case{"nccl_vars:\n  - {name: NCCL_X, kind: enum, source: NCCL-ENV}\n", "needs 'values'"},
           Case{"nccl_vars:\n  - {name: FOO_X, kind: int, source: NCCL-ENV}\n", "not an NCCL_ or RCCL_ name"},
           Case{"nccl_vars:\n  - {name: NCCL_X, kind: int, values: [a], source: NCCL-ENV}\n", "not a number"},
           Case{"nccl_vars:\n  - {name: NCCL_X, kind: int, min: low, source: NCCL-ENV}\n", "'min'"},
           Case{"nccl_vars:\n  - {name: NCCL_X, kind: int, source: NCCL-ENV}\n"
                "  - {name: NCCL_X, kind: bool, source: NCCL-ENV}\n",
                "duplicate"},
           Case{"nccl_risky:\n  - {name: NCCL_X, equals: [\"1\"], below: 2, why: w, better: b, source: "
                "NCCL-ENV}\n",
                "exactly one"},
           Case{"nccl_risky:\n  - {name: NCCL_X, any: true, requires: gpu, why: w, better: b, source: "
                "NCCL-ENV}\n",
                "'requires'"},
           Case{"alloc_conf_options:\n  - {option: x, kind: string, source: NCCL-ENV}\n", "'kind'"},
           Case{"device_selection:\n  - {name: X, vendor: intel, layer: l, source: NCCL-ENV}\n", "'vendor'"},
           Case{"torch_wheels:\n  - {torch: \"2.13\", variant: rocm7.2, rocm: \"7.2\", arches: [sm_90], "
                "source: NCCL-ENV}\n",
                "not an arch of a ROCm wheel"},
           Case{"torch_wheels:\n  - {torch: \"2.13\", variant: cu126, cuda: \"12.8\", arches: [sm_90], "
                "source: NCCL-ENV}\n",
                "must be cu128"},
           Case{"torch_wheels:\n  - {torch: \"2.13\", variant: cpu, arches: [sm_90], source: NCCL-ENV}\n",
                "only cpu rows have no arches"},
       }) {
    CAPTURE(c.rows);
    std::string err = error_of("e.yaml", c.rows);
    CHECK(text::contains(err, "e.yaml:"));
    CHECK(text::contains(err, c.says));
  }
}
