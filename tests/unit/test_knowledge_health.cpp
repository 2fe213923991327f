// The after-the-install knowledge: the whole Xid catalogue, module flavours per GPU family, NVSwitch devices,
// firmware packages per distribution, and the loader's refusals.
#include "knowledge/knowledge.hpp"
#include "testutil.hpp"
#include "unit/testutil.hpp"
#include "util/text.hpp"

#include <filesystem>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

using test::kb;

std::string load_error(const std::string& yaml) {
  test::TempDir dir("gpudoctor-kb-health");
  test::write_text(dir / "x.yaml", yaml);
  auto k = load_knowledge(dir.path().string());
  return k ? "(loaded)" : k.error();
}

GpuModel model(std::string name, std::string family) {
  GpuModel m;
  m.name = std::move(name);
  m.family = std::move(family);
  return m;
}

} // namespace

TEST_CASE("knowledge: every code of the Xid catalogue, each with a status, a category and words to act on") {
  const auto& h = kb().health;
  CHECK(h.xids.size() == 172); // codes 1..172 of the catalogue read
  for (int code = 1; code <= 172; ++code) {
    CAPTURE(code);
    const XidRow* row = h.xid(code);
    REQUIRE(row);
    CHECK_FALSE(h.xid_advice(*row).empty());
    CHECK(text::contains(row->source, "XID-CATALOG"));
  }
  // The checks-v1 row: application Xids are info, 63/64 warn with a pending remap, the rest of memory errors
  // and the bus, NVLink and GSP errors are errors.
  for (int code : {13, 31, 43, 45})
    CHECK(h.xid(code)->status == "info");
  for (int code : {63, 64}) {
    CHECK(h.xid(code)->status == "warn");
    CHECK(h.xid(code)->after_repair);
  }
  for (int code : {48, 74, 79, 92, 93, 94, 95, 119, 120})
    CHECK(h.xid(code)->status == "error");
  CHECK(h.xid(79)->resolution == "RESTART_BM");
  CHECK(h.xid(79)->category == "bus");
  CHECK(h.xid(13)->resolution == "RESTART_APP");
  CHECK_FALSE(h.xid(999));
}

TEST_CASE("knowledge: module flavours per GPU family; a model row beats its family's") {
  const auto& h = kb().health;
  CHECK(h.module_flavour(model("GeForce RTX 5090", "Blackwell"))->open == "required");
  CHECK(h.module_flavour(model("GeForce RTX 5090", "Blackwell"))->proprietary == "unsupported");
  CHECK(h.module_flavour(model("Tesla V100-SXM2-32GB", "Volta"))->open == "unsupported");
  CHECK(h.module_flavour(model("NVIDIA H100 80GB HBM3", "Hopper"))->open == "supported");
  CHECK(h.module_flavour(model("NVIDIA GH200 480GB", "Hopper"))->open == "required");
  CHECK_FALSE(h.module_flavour(model("Radeon RX 7900 XTX", "RDNA3")));
  // Every NVIDIA family of the GPU table has a row: the check never guesses.
  for (const auto& g : kb().gpus)
    if (g.vendor_id == 0x10de) {
      CAPTURE(g.model.name);
      CHECK(h.module_flavour(g.model));
    }
}

TEST_CASE("knowledge: NVSwitch devices, the subnet manager, firmware packages per distribution") {
  const auto& h = kb().health;
  REQUIRE(h.nvswitch(0x22a3));
  CHECK(h.nvswitch(0x22a3)->generation == 3);
  CHECK(h.nvswitch(0x1af1)->generation == 2);
  CHECK_FALSE(h.nvswitch(0x2330)); // an H100 GPU, not a switch
  CHECK(h.subnet_manager("Blackwell")->package == "nvlsm");
  CHECK_FALSE(h.subnet_manager("Hopper"));
  auto debian = h.firmware_packages_for("amd", "debian", {});
  REQUIRE(debian.size() == 1);
  CHECK(debian[0]->package == "firmware-amd-graphics");
  auto mint = h.firmware_packages_for("amd", "linuxmint", {"ubuntu", "debian"});
  REQUIRE(mint.size() == 1);
  CHECK(mint[0]->package == "linux-firmware"); // ID_LIKE in order: Ubuntu's before Debian's
  CHECK(h.firmware_packages_for("amd", "fedora", {})[0]->package == "amd-gpu-firmware");
  CHECK(h.firmware_packages_for("amd", "plan9", {}).empty());
}

TEST_CASE("knowledge: the health tables refuse bad rows with the file and line") {
  const std::string src = "sources:\n  X: \"x\"\n";
  CHECK(text::contains(load_error(src +
                                  "xid_codes:\n  - {code: 13, mnemonic: M, description: D, resolution: R, "
                                  "category: app, status: info, source: X}\n"),
                       "x.yaml:4"));
  CHECK(text::contains(load_error(src +
                                  "xid_codes:\n  - {code: 13, mnemonic: M, description: D, resolution: R, "
                                  "category: application, status: fatal, source: X}\n"),
                       "field 'status' must be one of info, warn, error"));
  CHECK(text::contains(load_error(src +
                                  "nvidia_module_flavours:\n  - {family: Volta, open: maybe, proprietary: "
                                  "supported, source: X}\n"),
                       "field 'open'"));
  CHECK(text::contains(
      load_error(src + "firmware_packages:\n  - {vendor: intel, os: debian, package: p, source: X}\n"),
      "field 'vendor'"));
  CHECK(text::contains(
      load_error(src + "nvswitch_devices:\n  - {device: 0x22a3, name: S, generation: 3, source: X}\n"
                       "  - {device: 0x22a3, name: S, generation: 3, source: X}\n"),
      "duplicate"));
}
