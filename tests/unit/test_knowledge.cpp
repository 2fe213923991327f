#include "knowledge/knowledge.hpp"
#include "unit/testutil.hpp"
#include "util/embedded.hpp"
#include "util/text.hpp"

#include <filesystem>
#include <set>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

const Knowledge& embedded() {
  static const Knowledge kb = [] {
    auto k = load_knowledge();
    if (!k) FAIL("embedded knowledge does not load: " << k.error());
    return *k;
  }();
  return kb;
}

std::vector<std::string> keys_of(const std::string& source) {
  std::vector<std::string> keys;
  for (auto& k : text::split(source, ','))
    keys.push_back(text::trim(k));
  return keys;
}

const char* kSources = "sources:\n  PCIIDS: \"pci.ids\"\n";

std::string load_error(const test::TempDir& dir) {
  auto k = load_knowledge(dir.path().string());
  if (k) return "(loaded)";
  return k.error();
}

} // namespace

TEST_CASE("knowledge: every embedded file loads, the same as the source folder") {
  std::size_t files = 0, on_disk = 0;
  for (const auto& [path, content] : embedded_data_files())
    if (text::starts_with(path, "checks/knowledge/") && text::ends_with(path, ".yaml")) ++files;
  for (const auto& entry : std::filesystem::directory_iterator(GPUDOCTOR_SOURCE_DIR "/checks/knowledge"))
    if (entry.path().extension() == ".yaml") ++on_disk;
  CHECK(files >= 6);
  CHECK(files == on_disk);

  auto k = load_knowledge();
  REQUIRE_MESSAGE(k, (k ? "" : k.error()));
  CHECK(k->gpus.empty()); // the GPU table is compiled in (test_gpu_table.cpp); YAML rows only override it
  CHECK(k->cuda_drivers.size() == 58);
  CHECK(k->cuda_families.size() == 3);
  CHECK(k->driver_branches.size() == 24);
  CHECK(k->gfx_targets.size() == 32);
  CHECK(k->gpu_env_prefixes.size() >= 15);
  CHECK(k->gpu_env_names.size() >= 15);

  auto d = load_knowledge(GPUDOCTOR_SOURCE_DIR "/checks/knowledge");
  REQUIRE_MESSAGE(d, (d ? "" : d.error()));
  CHECK(d->gpus.size() == k->gpus.size());
  CHECK(d->cuda_drivers.size() == k->cuda_drivers.size());
  CHECK(d->gfx_targets.size() == k->gfx_targets.size());
  CHECK(d->sources == k->sources);
}

TEST_CASE("knowledge: every row cites source keys that its file defines") {
  const auto& kb = embedded();
  auto cited = [&](const std::string& source) {
    CAPTURE(source);
    auto keys = keys_of(source);
    CHECK_FALSE(keys.empty());
    for (const auto& key : keys)
      CHECK(kb.sources.count(key) == 1);
  };
  for (const auto& r : kb.cuda_drivers)
    cited(r.source);
  for (const auto& r : kb.cuda_families)
    cited(r.source);
  for (const auto& r : kb.driver_branches)
    cited(r.source);
  for (const auto& r : kb.gfx_targets)
    cited(r.source);
  for (const auto& [key, citation] : kb.sources)
    CHECK_FALSE(citation.empty());

  // The loader enforces it: a key defined only in another file does not count.
  test::TempDir dir;
  test::write_text(dir / "a.yaml", std::string(kSources) +
                                       "gfx_targets:\n"
                                       "  - {gfx_target_version: 110000, target: gfx1100, family: GFX11, "
                                       "source: PCIIDS}\n");
  test::write_text(dir / "b.yaml",
                   "sources:\n  KFD: \"kernel\"\n"
                   "gfx_targets:\n"
                   "  - {gfx_target_version: 120000, target: gfx1200, family: GFX12, source: PCIIDS}\n");
  std::string err = load_error(dir);
  CHECK(text::contains(err, "b.yaml:4"));
  CHECK(text::contains(err, "'PCIIDS'"));
}

TEST_CASE("knowledge: GPU spot checks") {
  const auto& kb = embedded();
  auto h200 = kb.find_gpu(0x10de, 0x2335, 0xa1, std::nullopt);
  REQUIRE(h200);
  CHECK(text::contains(h200->name, "H200"));
  CHECK(h200->arch == "sm_90");
  CHECK(h200->family == "Hopper");
  CHECK_FALSE(h200->vram_bytes); // NVIDIA's lists give no memory size
  CHECK_FALSE(h200->uncertain);

  auto xtx = kb.find_gpu(0x1002, 0x744c, 0xc8, 0x0e3b);
  REQUIRE(xtx);
  CHECK(xtx->name == "AMD Radeon RX 7900 XTX");
  CHECK(xtx->arch == "gfx1100");
  CHECK(xtx->gfx_target_version == 110000);
  CHECK(xtx->vram_bytes == 24ull << 30);
  auto xt = kb.find_gpu(0x1002, 0x744c, 0xcc, std::nullopt);
  REQUIRE(xt);
  CHECK(xt->name == "AMD Radeon RX 7900 XT");
  CHECK(kb.find_gpu(0x1002, 0x744c, 0xce, std::nullopt)->name == "AMD Radeon RX 7900 GRE");
  // A revision amdgpu.ids does not list: the device's own row (pci.ids name), with the die's target.
  auto other = kb.find_gpu(0x1002, 0x744c, 0x01, std::nullopt);
  REQUIRE(other);
  CHECK(other->arch == "gfx1100");
  CHECK_FALSE(other->vram_bytes);
  CHECK(kb.find_gpu(0x1002, 0x744c, std::nullopt, std::nullopt)->arch == "gfx1100");

  CHECK(kb.find_gpu(0x1002, 0x74a1, 0x00, std::nullopt)->arch == "gfx942");
  CHECK(kb.find_gpu(0x10de, 0x2b85, std::nullopt, std::nullopt)->arch == "sm_120");
  CHECK(kb.find_gpu(0x10de, 0x1db4, std::nullopt, std::nullopt)->family == "Volta");
  CHECK_FALSE(kb.find_gpu(0x10de, 0x0001, std::nullopt, std::nullopt));
  CHECK_FALSE(kb.find_gpu(0x1002, 0x2335, std::nullopt, std::nullopt)); // an NVIDIA id under AMD's vendor
}

TEST_CASE("knowledge: a revision or subsystem match beats a device-only row") {
  test::TempDir dir;
  test::write_text(dir / "gpus.yaml", std::string(kSources) + R"(gpus:
  - {vendor: 0x10de, device: 0x20b2, name: "A100 SXM4 80GB", arch: sm_80, family: Ampere, source: PCIIDS}
  - {vendor: 0x10de, device: 0x20b2, subsystem_device: 0x147f, name: "A100 board B", arch: sm_80,
     family: Ampere, source: PCIIDS}
  - vendor: "0x1002"
    device: 0x1234
    revision: 0xc1
    name: rev c1
    arch: gfx1030
    family: RDNA2
    source: PCIIDS
    uncertain: true
  - {vendor: 0x1002, device: 0x1234, name: "any rev", arch: gfx1030, family: RDNA2, source: [PCIIDS]}
)");
  auto k = load_knowledge(dir.path().string());
  REQUIRE_MESSAGE(k, (k ? "" : k.error()));
  CHECK(k->find_gpu(0x10de, 0x20b2, std::nullopt, 0x147f)->name == "A100 board B");
  CHECK(k->find_gpu(0x10de, 0x20b2, std::nullopt, 0x1463)->name == "A100 SXM4 80GB");
  CHECK(k->find_gpu(0x10de, 0x20b2, std::nullopt, std::nullopt)->name == "A100 SXM4 80GB");
  auto c1 = k->find_gpu(0x1002, 0x1234, 0xc1, std::nullopt);
  CHECK(c1->name == "rev c1");
  CHECK(c1->uncertain);
  CHECK(c1->source == "knowledge gpus.yaml: PCIIDS");
  CHECK(k->find_gpu(0x1002, 0x1234, 0xc3, std::nullopt)->name == "any rev");
  CHECK(k->find_gpu(0x1002, 0x1234, std::nullopt, std::nullopt)->name == "any rev");
}

TEST_CASE("knowledge: CUDA toolkit and driver") {
  const auto& kb = embedded();
  CHECK(kb.min_driver_for_cuda("12.4")->min_driver == "550.54.14");
  CHECK(kb.min_driver_for_cuda("12.4.0")->min_driver == "550.54.14");
  CHECK(kb.min_driver_for_cuda("12.4.1")->min_driver == "550.54.15");
  CHECK(kb.min_driver_for_cuda("12.4.131")->min_driver == "550.54.14"); // nvcc's own version
  CHECK(kb.min_driver_for_cuda("13.0.88")->cuda == "13.0");
  CHECK(kb.min_driver_for_cuda("13.0.2")->min_driver == "580.95.05");
  CHECK(kb.min_driver_for_cuda("11.8.20220929")->min_driver == "520.61.05");
  CHECK(kb.min_driver_for_cuda("11.0.2")->min_driver == "450.51.05"); // 11.0 GA shipped as 11.0.2
  CHECK(kb.min_driver_for_cuda("13.4")->uncertain);
  CHECK_FALSE(kb.min_driver_for_cuda("12.7")); // no such toolkit
  CHECK_FALSE(kb.min_driver_for_cuda("12"));
  CHECK_FALSE(kb.min_driver_for_cuda(""));
  CHECK(text::compare_versions(kb.min_driver_for_cuda("13.0")->min_driver, "580") >= 0);

  CHECK(kb.driver_runs_cuda("535.104.05", "12.2") == true);
  CHECK(kb.driver_runs_cuda("535.104.05", "12.4") == true); // minor-version compatibility, 12.x >= 525
  CHECK(kb.driver_runs_cuda("535.104.05", "12.7") == true); // unknown release, known family
  CHECK(kb.driver_runs_cuda("520.61.05", "12.0") == false);
  CHECK(kb.driver_runs_cuda("520.61.05", "12.4.1") == false);
  CHECK(kb.driver_runs_cuda("575.57.08", "13.0") == false);
  CHECK(kb.driver_runs_cuda("580.65.06", "13.0.88") == true);
  CHECK(kb.driver_runs_cuda("580.65.06", "13.2") == true); // 13.x minor compatibility
  CHECK(kb.driver_runs_cuda("610.43.02", "11.8") == true); // newer drivers run older toolkits
  CHECK(kb.driver_runs_cuda("450.51.05", "11.0") == true);
  CHECK(kb.driver_runs_cuda("450.51.05", "11.4") == false); // 11.x-wide compat needs 450.80.02
  CHECK(kb.driver_runs_cuda("450.80.02", "11.4") == true);
  CHECK(kb.driver_runs_cuda("418.39", "10.2") == false); // no compatibility range for 10.x
  CHECK(kb.driver_runs_cuda("440.33", "10.2") == true);
  CHECK_FALSE(kb.driver_runs_cuda("610.43.02", "14.0").has_value());
  CHECK_FALSE(kb.driver_runs_cuda("", "12.4").has_value());

  CHECK(kb.cuda_family(12)->below_branch == 580);
  CHECK_FALSE(kb.cuda_family(13)->below_branch);
  CHECK(kb.driver_branch("565.57.01")->max_cuda == "12.7");
  CHECK(kb.driver_branch("535.104.05")->max_cuda == "12.2");
  CHECK(kb.driver_branch("616.00")->uncertain);
  CHECK_FALSE(kb.driver_branch("540.1"));
}

TEST_CASE("knowledge: gfx targets and families") {
  const auto& kb = embedded();
  auto a = kb.find_gfx(90010);
  REQUIRE(a);
  CHECK(a->target == "gfx90a");
  CHECK(text::starts_with(a->family, "GFX9"));
  CHECK(kb.find_gfx(90402)->family == a->family);                    // gfx942: same family as gfx90a
  CHECK(kb.find_gfx(110001)->target == "gfx1101");                   // GC 11.0.3
  CHECK(kb.find_gfx(110501)->family == kb.find_gfx(110000)->family); // gfx1151 is GFX11
  CHECK(kb.find_gfx(120001)->family != kb.find_gfx(110000)->family); // GFX12 is not GFX11
  CHECK(kb.find_gfx(100301)->family == kb.find_gfx(100300)->family);
  CHECK(kb.find_gfx(100100)->family != kb.find_gfx(100300)->family); // RDNA1 is not RDNA2
  CHECK_FALSE(kb.find_gfx(0));                                       // CPU nodes
  CHECK(kb.isa_family(110000) == kb.find_gfx(110000)->family);
  CHECK(kb.isa_family(110005) == kb.find_gfx(110000)->family); // a stepping the table lacks
  CHECK(kb.isa_family(100309) == kb.find_gfx(100300)->family);
  CHECK(kb.isa_family(90409) == kb.find_gfx(90010)->family);
  CHECK_FALSE(kb.isa_family(100200)); // GFX10 holds two families (10.1, 10.3): 10.2 is neither
  CHECK_FALSE(kb.isa_family(130000));
  CHECK_FALSE(kb.isa_family(0));
  CHECK(kb.find_gfx_target("gfx942:sramecc+:xnack-")->gfx_target_version == 90402);
  CHECK(kb.find_gfx_target("GFX1100")->gfx_target_version == 110000);
  CHECK_FALSE(kb.find_gfx_target("gfx9999"));
}

TEST_CASE("knowledge: GPU environment variables") {
  const auto& kb = embedded();
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION_1",
        "GPU_DEVICE_ORDINAL", "NCCL_P2P_DISABLE", "RCCL_MSCCL_ENABLE", "PYTORCH_CUDA_ALLOC_CONF",
        "LD_LIBRARY_PATH", "PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "ROCM_PATH", "CUDA_HOME",
        "MIOPEN_USER_DB_PATH", "HSAKMT_DEBUG_LEVEL"}) {
    CAPTURE(name);
    CHECK(kb.is_gpu_env_var(name));
  }
  for (const char* name : {"HOME", "USER", "cuda_visible_devices", "PATHS", "GPU_X", "LANG"}) {
    CAPTURE(name);
    CHECK_FALSE(kb.is_gpu_env_var(name));
  }
}

TEST_CASE("knowledge: malformed files give an error with file and line") {
  SUBCASE("bad YAML") {
    test::TempDir dir;
    test::write_text(dir / "broken.yaml",
                     std::string(kSources) + "gpus:\n  - {vendor: 0x10de, device: [0x2335\n");
    std::string err = load_error(dir);
    CHECK(text::contains(err, "broken.yaml:"));
    CHECK(text::contains(err, dir.path().string()));
  }
  SUBCASE("a row missing its name") {
    test::TempDir dir;
    test::write_text(dir / "gpus.yaml",
                     std::string(kSources) +
                         "gpus:\n"
                         "  - {vendor: 0x10de, device: 0x2335, arch: sm_90, family: Hopper, "
                         "source: PCIIDS}\n");
    std::string err = load_error(dir);
    CHECK(text::contains(err, "gpus.yaml:4"));
    CHECK(text::contains(err, "'name'"));
  }
  struct Case {
    const char *row, *says;
  };
  for (auto c :
       {Case{"{vendor: 0x8086, device: 0x56a0, name: Arc, arch: xe, family: Xe, source: PCIIDS}",
             "unknown vendor"},
        Case{"{vendor: 0x10de, device: [1], name: X, arch: sm_90, family: H, source: PCIIDS}", "'device'"},
        Case{"{vendor: 0x10de, device: 8989, name: X, arch: sm_90, family: H, source: PCIIDS}", "0x hex"},
        Case{"{vendor: 0x10de, device: 0x2335, name: X, arch: sm_90, family: H, source: NOPE}", "'NOPE'"},
        Case{"{vendor: 0x10de, device: 0x2335, name: X, arch: sm_90, family: H, source: PCIIDS, nam: Y}",
             "unknown field 'nam'"},
        Case{"{vendor: 0x10de, device: 0x2335, name: X, arch: gfx90a, family: H, source: PCIIDS}", "arch"},
        Case{"{vendor: 0x10de, device: 0x2335, name: X, arch: sm_90, family: H, source: PCIIDS, "
             "uncertain: maybe}",
             "true or false"},
        Case{"{vendor: 0x10de, device: 0x2335, name: X, arch: sm_90, family: H, source: PCIIDS, "
             "vram_gib: lots}",
             "vram_gib"},
        Case{"just text", "mapping"}}) {
    CAPTURE(c.row);
    test::TempDir dir;
    test::write_text(dir / "gpus.yaml", std::string(kSources) + "gpus:\n  - " + c.row + "\n");
    std::string err = load_error(dir);
    CHECK(text::contains(err, "gpus.yaml:4"));
    CHECK(text::contains(err, c.says));
  }
  SUBCASE("duplicate rows, bad versions, unknown tables") {
    test::TempDir dir;
    test::write_text(dir / "cuda.yaml",
                     std::string(kSources) +
                         "toolkit_min_driver:\n"
                         "  - {cuda: \"12.4\", min_driver: \"550.54.14\", source: PCIIDS}\n"
                         "  - {cuda: \"12.4\", min_driver: \"550.54.15\", source: PCIIDS}\n");
    std::string err = load_error(dir);
    CHECK(text::contains(err, "cuda.yaml:5"));
    CHECK(text::contains(err, "duplicate"));

    test::TempDir v;
    test::write_text(v / "cuda.yaml",
                     std::string(kSources) +
                         "toolkit_min_driver:\n"
                         "  - {cuda: \"12.x\", min_driver: \"550.54.14\", source: PCIIDS}\n");
    CHECK(text::contains(load_error(v), "cuda.yaml:4"));

    test::TempDir t;
    test::write_text(t / "x.yaml", std::string(kSources) + "gpu_models:\n  - {name: X}\n");
    err = load_error(t);
    CHECK(text::contains(err, "x.yaml:3"));
    CHECK(text::contains(err, "unknown table 'gpu_models'"));

    test::TempDir s;
    test::write_text(s / "a.yaml", "sources: [PCIIDS]\n");
    CHECK(text::contains(load_error(s), "a.yaml:1"));

    test::TempDir n;
    test::write_text(n / "a.yaml", "");
    CHECK(text::contains(load_error(n), "a.yaml"));
  }
  SUBCASE("missing or empty folder") {
    test::TempDir dir;
    CHECK(text::contains(load_error(dir), "no knowledge files"));
    auto k = load_knowledge(dir.path().string() + "/absent");
    REQUIRE_FALSE(k);
    CHECK(text::contains(k.error(), "absent"));
  }
}
