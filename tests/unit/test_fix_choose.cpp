// Version choice for install and migrate: the knowledge tables decide, overrides are checked, impossible
// combinations are refused with the reason.
#include "app/version_help.hpp"
#include "check_fixtures.hpp"
#include "fix/choose.hpp"
#include "fix/incoming_gpu.hpp"
#include "fix_fixtures.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <doctest/doctest.h>
#include <fmt/format.h>

using namespace gpudoctor;
using namespace gpudoctor::fix;
using namespace gpudoctor::test;

namespace {

Facts with_os(Facts f, const std::string& id, const std::string& version, const std::string& codename) {
  f.os.id = {id, "/etc/os-release"};
  f.os.version_id = {version, "/etc/os-release"};
  if (!codename.empty()) f.os.codename = {codename, "/etc/os-release"};
  f.os.pretty_name = {id + " " + version, "/etc/os-release"};
  return f;
}

Facts nvidia_box(unsigned device) {
  Facts f = with_os(Facts{}, "ubuntu", "22.04", "jammy");
  f.gpus.push_back(make_nvidia_gpu(0, device));
  return f;
}

std::string refusal(const Facts& f, VersionRequest req) {
  auto c = choose_nvidia(f, kb(), stacks(), req);
  return c ? "(chosen " + c->cuda + ")" : c.error();
}

} // namespace

TEST_CASE("fix choose: NVIDIA versions follow the GPU's compute capability") {
  auto ampere = choose_nvidia(nvidia_box(0x2204), kb(), stacks(), {}); // RTX 3090, sm_86
  REQUIRE(ampere.has_value());
  CHECK(ampere->cuda == "13.0");
  CHECK(ampere->branch == 580);
  CHECK(ampere->open_modules);
  CHECK(ampere->torch_index == "cu130");

  auto volta = choose_nvidia(nvidia_box(0x1db4), kb(), stacks(), {}); // V100, sm_70
  REQUIRE(volta.has_value());
  CHECK(volta->cuda == "12.6");
  // CUDA 12.6 needs 560, a short-lived new-feature branch: the lowest long-lived one from there is R580.
  CHECK(volta->branch == 580);
  CHECK(!volta->open_modules); // the open modules need Turing or later
  CHECK(volta->torch_index == "cu126");

  auto blackwell = choose_nvidia(nvidia_box(0x2b85), kb(), stacks(), {}); // RTX 5090, sm_120
  REQUIRE(blackwell.has_value());
  CHECK(blackwell->cuda == "13.0");
  CHECK(blackwell->torch_index == "cu130");

  auto pinned = choose_nvidia(nvidia_box(0x2204), kb(), stacks(), {.driver = "570", .cuda = "12.8"});
  REQUIRE(pinned.has_value());
  CHECK(pinned->branch == 570);
  CHECK(pinned->torch_index == "cu128");
}

TEST_CASE(
    "fix choose: the kernel-module flavour comes from the knowledge table driver.module-flavour reads") {
  // The same table as the check: a row that says a family lacks the open modules decides the choice.
  Knowledge edited = kb();
  for (auto& row : edited.health.module_flavours)
    if (row.family == "Turing") row.open = "unsupported";
  auto turing = choose_nvidia(nvidia_box(0x1eb8), edited, stacks(), {}); // Tesla T4, sm_75
  REQUIRE(turing.has_value());
  CHECK(!turing->open_modules);
  CHECK(test::contains(text::join(turing->notes, "\n"), "the open modules do not drive Tesla T4 (Turing)"));

  // Volta needs the proprietary modules and Blackwell the open ones: no one flavour drives both.
  Facts mixed = nvidia_box(0x1db4);                 // V100
  mixed.gpus.push_back(make_nvidia_gpu(1, 0x2b85)); // RTX 5090
  auto both = choose_nvidia(mixed, kb(), stacks(), {});
  REQUIRE(!both.has_value());
  CHECK(test::contains(both.error(), "no kernel-module flavour drives both"));
}

TEST_CASE("fix choose: impossible NVIDIA combinations are refused with the reason") {
  CHECK(test::contains(refusal(nvidia_box(0x1db4), {.cuda = "13.0"}),
                       "CUDA 13 no longer builds for compute capability below sm_75"));
  CHECK(test::contains(refusal(nvidia_box(0x2b85), {.cuda = "12.4"}),
                       "CUDA 12.4 cannot build for sm_120: that needs CUDA 12.8"));
  CHECK(test::contains(refusal(nvidia_box(0x2204), {.cuda = "11.0"}), "needs CUDA 11.1 or newer"));
  CHECK(test::contains(refusal(nvidia_box(0x2204), {.driver = "470", .cuda = "12.4"}),
                       "driver 470 cannot run CUDA 12.4"));
  CHECK(test::contains(refusal(nvidia_box(0x2b85), {.driver = "550", .cuda = "12.8"}),
                       "driver 550 supports CUDA up to 12.4, and sm_120"));
  CHECK(test::contains(refusal(nvidia_box(0x2204), {.cuda = "99.1"}), "not in the knowledge tables"));
  // A driver of the same CUDA major runs it under minor-version compatibility: allowed, with a note.
  auto compat = choose_nvidia(nvidia_box(0x2204), kb(), stacks(), {.driver = "535", .cuda = "12.4"});
  REQUIRE(compat.has_value());
  CHECK(test::contains(compat->notes.back() + compat->notes.front(), "CUDA 12.4"));
}

TEST_CASE("fix choose: the ROCm release supports the GPU and the OS") {
  Facts rdna3 = with_os(amd_machine({110000}), "ubuntu", "22.04", "jammy");
  auto os = os_key(rdna3, kb());
  REQUIRE(os.has_value());
  auto c = choose_amd(rdna3, kb(), stacks(), *os, {});
  REQUIRE(c.has_value());
  CHECK(c->install.rocm == "7.2");
  CHECK(c->torch_index == "rocm7.2");

  auto old = choose_amd(rdna3, kb(), stacks(), *os, {.rocm = "6.2"});
  REQUIRE(old.has_value());
  CHECK(old->install.apt_dir == "6.2.4");

  Facts rdna4 = with_os(amd_machine({120001}), "ubuntu", "24.04", "noble");
  auto os4 = os_key(rdna4, kb());
  auto refused = choose_amd(rdna4, kb(), stacks(), *os4, {.rocm = "6.2"});
  REQUIRE(!refused.has_value());
  CHECK(test::contains(refused.error(), "ROCm 6.2 supports none of this machine's GPUs (gfx1201"));
  CHECK(!choose_amd(rdna3, kb(), stacks(), *os, {.rocm = "5.7"}).has_value()); // no repositories for it

  Facts debian = with_os(amd_machine({90010}), "debian", "12", "bookworm");
  auto osd = os_key(debian, kb());
  REQUIRE(osd.has_value());
  CHECK(osd->base_id == "debian");
  auto cd = choose_amd(debian, kb(), stacks(), *osd, {});
  REQUIRE(cd.has_value());
  CHECK(cd->install.rocm == "7.2");
}

TEST_CASE("fix choose: the OS key maps derivatives onto their base") {
  Facts mint = with_os(Facts{}, "linuxmint", "21", "vanessa");
  mint.os.id_like = {"ubuntu", "debian"};
  mint.repos.ubuntu_codename = {"jammy", "/etc/os-release"};
  auto os = os_key(mint, kb());
  REQUIRE(os.has_value());
  CHECK(os->ubuntu);
  CHECK(os->base_version == "22.04");
  CHECK(os->codename == "jammy");

  Facts rocky = with_os(Facts{}, "rocky", "9.4", "");
  rocky.os.id_like = {"rhel", "centos", "fedora"};
  auto r = os_key(rocky, kb());
  REQUIRE(r.has_value());
  CHECK(r->family == Family::rhel);
  CHECK(r->base_id == "rhel");

  CHECK(!os_key(with_os(Facts{}, "arch", "rolling", ""), kb()).has_value());
}

TEST_CASE(
    "fix choose: torch-reinstall's index carries the GPU's architecture (knowledge pytorch_wheels.yaml)") {
  auto here = [](unsigned device, const std::string& driver) {
    Facts f = nvidia_box(device);
    f.nvidia.kernel_module_version = {driver, "/proc/driver/nvidia/version"};
    return choose_torch_here(f, kb(), stacks(), Vendor::nvidia);
  };
  // An RTX 5090 (sm_120) on a 570 driver: CUDA 13 needs 580, the cu126 wheels stop at sm_90: cu128.
  auto blackwell = here(0x2b85, "570.124.06");
  REQUIRE(blackwell.has_value());
  CHECK(blackwell->index == "cu128");
  CHECK(test::contains(blackwell->why, "sm_120"));
  // With a 580 driver the newest release's cu130 wheels carry it.
  CHECK(here(0x2b85, "580.65.06")->index == "cu130");
  // 535 (CUDA 12.2) runs every CUDA 12 wheel through minor-version compatibility; the cu128 ones carry
  // sm_120.
  CHECK(here(0x2b85, "535.183.01")->index == "cu128");
  // An RTX 4090 (sm_89) on 535: the newest release, through minor-version compatibility (cu126 of 2.14).
  auto ada = here(0x2684, "535.183.01");
  REQUIRE(ada.has_value());
  CHECK(ada->index == "cu126");
  CHECK(test::contains(ada->why, "PyTorch 2.14"));
  // A driver too old for any CUDA 12 wheel.
  CHECK_FALSE(here(0x2b85, "470.256.02").has_value());
}

TEST_CASE("fix choose: --gpu names the incoming card by model name or PCI id; anything else is refused") {
  auto rtx3090 = incoming_gpu(kb(), "RTX 3090", Vendor::nvidia);
  REQUIRE_MESSAGE(rtx3090.has_value(), (rtx3090 ? std::string() : rtx3090.error()));
  CHECK(rtx3090->gpu.device_id == 0x2204); // the exact name wins over "RTX 3090 Ti"
  CHECK(rtx3090->gpu.arch() == "sm_86");
  CHECK(rtx3090->note.empty());
  auto by_id = incoming_gpu(kb(), "10de:2b85", Vendor::nvidia);
  REQUIRE(by_id.has_value());
  CHECK(by_id->gpu.model->family == "Blackwell");
  CHECK(incoming_gpu(kb(), "rx 7900 xtx", Vendor::amd)->gpu.arch() == "gfx1100");
  // Several models of one architecture are one family: the choices are the same for each, and the plan
  // says which models the name stands for.
  for (const char* family : {"3090", "Tesla V100", "H100"}) {
    auto several = incoming_gpu(kb(), family, Vendor::nvidia);
    REQUIRE_MESSAGE(several.has_value(), (several ? std::string() : several.error()));
    CHECK_MESSAGE(test::contains(several->note, "the versions chosen are the same for each"), family);
  }
  CHECK(test::contains(incoming_gpu(kb(), "Tesla V100", Vendor::nvidia)->note, "all sm_70"));
  // Models of several architectures: named, not guessed.
  auto mixed = incoming_gpu(kb(), "Tesla", Vendor::nvidia);
  REQUIRE_FALSE(mixed.has_value());
  CHECK(test::contains(mixed.error(), "of different architectures"));
  CHECK(test::contains(incoming_gpu(kb(), "RTX 9999", Vendor::nvidia).error(), "names no GPU"));
  CHECK(test::contains(incoming_gpu(kb(), "10de:ffff", Vendor::nvidia).error(), "no such PCI id"));
  // The vendor once, whether or not the table's name carries it.
  const std::string amd_card = incoming_gpu(kb(), "RX 7900 XTX", Vendor::nvidia).error();
  CHECK(test::contains(amd_card, "is the AMD Radeon RX 7900 XTX, not a card for the NVIDIA stack"));
  CHECK_FALSE(test::contains(amd_card, "AMD AMD"));
  const std::string nvidia_card = incoming_gpu(kb(), "RTX 3090 Ti", Vendor::amd).error();
  CHECK(test::contains(nvidia_card, "is the NVIDIA GeForce RTX 3090 Ti, not a card for the AMD stack"));
  CHECK_FALSE(test::contains(nvidia_card, "NVIDIA NVIDIA"));
  CHECK_FALSE(incoming_gpu(kb(), " - ", Vendor::nvidia).has_value());

  // The choice for the incoming card replaces the GPUs of its vendor, not the others.
  Facts box = nvidia_box(0x1db4); // V100
  box.gpus.push_back(make_nvidia_gpu(1, 0x1db4));
  Facts chosen = with_incoming_gpu(box, by_id->gpu);
  REQUIRE(chosen.count(Vendor::nvidia) == 1);
  auto c = choose_nvidia(chosen, kb(), stacks(), {});
  REQUIRE(c.has_value());
  CHECK(c->open_modules); // Blackwell needs them
  CHECK(c->cuda == "13.0");
}

TEST_CASE("fix choose: the CUDA release's note says why it is that one (a V100 gets PyTorch's cu126)") {
  auto v100 = choose_nvidia(nvidia_box(0x1db4), kb(), stacks(), {});
  REQUIRE(v100.has_value());
  CHECK(v100->cuda == "12.6");
  REQUIRE_FALSE(v100->notes.empty());
  CHECK(test::contains(v100->notes.front(), "the release of PyTorch's cu126 wheels"));
  CHECK(test::contains(v100->notes.front(), "CUDA 13 no longer builds for compute capability below sm_75"));
  auto h200 = choose_nvidia(nvidia_box(0x2335), kb(), stacks(), {});
  REQUIRE(h200.has_value());
  CHECK(test::contains(h200->notes.front(), "CUDA 13.0 (the release of PyTorch's cu130 wheels"));
}

TEST_CASE("fix choose: --help names the versions the planner picks, from its tables") {
  auto c = choose_nvidia(Facts{}, kb(), stacks(), {});
  REQUIRE(c.has_value());
  VersionHelp help = version_help();
  CHECK(test::contains(help.driver, fmt::format("({} for CUDA {}:", c->branch, c->cuda)));
  CHECK(test::contains(help.cuda, "(" + c->cuda + ", "));
  auto rocm = std::find_if(stacks().rocm_installs.begin(), stacks().rocm_installs.end(),
                           [](const RocmInstallRow& r) { return r.recommended; });
  REQUIRE(rocm != stacks().rocm_installs.end());
  CHECK(test::contains(help.rocm, "(" + rocm->rocm + ", or the newest before it"));
}

TEST_CASE("fix choose: the note on the module flavour's default is true for the branch") {
  auto pre560 = choose_nvidia(nvidia_box(0x2204), kb(), stacks(), {.driver = "550", .cuda = "12.4"});
  REQUIRE(pre560.has_value());
  std::string notes = text::join(pre560->notes, "\n");
  CHECK(test::contains(notes, "before R560 NVIDIA's default was the proprietary modules"));
  CHECK_FALSE(test::contains(notes, "default since R560"));
  auto now = choose_nvidia(nvidia_box(0x2204), kb(), stacks(), {});
  CHECK(test::contains(text::join(now->notes, "\n"), "NVIDIA's default since R560"));
}
