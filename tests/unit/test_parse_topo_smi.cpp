// nvidia-smi topo -m, rocm-smi, amd-smi and KFD io_links over real samples.
#include "parse/parsers_system.hpp"
#include "unit/test_parse_util.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;

TEST_CASE("parse: nvidia-smi topo -m, 8x H100 NV18 and 8x A100 NV12 (spaces, no legend)") {
  auto h = parse::nvidia_smi_topo(realdata("nvidia-smi-topo-m-h100-8gpu-nv18-1.txt"));
  REQUIRE(h);
  CHECK(h->devices.size() == 8);
  CHECK(h->gpus().size() == 8);
  REQUIRE(h->rows.size() == 8);
  for (const auto& r : h->rows) {
    CAPTURE(r.device);
    CHECK(r.links.size() == 8);
    CHECK(r.gpu_numa_id.empty());
  }
  CHECK(h->link("GPU0", "GPU0") == "X");
  CHECK(h->link("GPU0", "GPU7") == "NV18");
  CHECK(h->link("GPU7", "GPU6") == "NV18");
  CHECK(h->link("GPU0", "GPU8").empty());
  CHECK(h->rows[0].cpu_affinity == "0-51");
  CHECK(h->rows[0].numa_affinity == "0");
  CHECK(h->rows[7].cpu_affinity == "52-103");
  CHECK(h->rows[7].numa_affinity == "1");
  int n = 0;
  CHECK(parse::topo_link(h->link("GPU3", "GPU4"), &n) == parse::TopoLink::nvlink);
  CHECK(n == 18);

  auto a = parse::nvidia_smi_topo(realdata("nvidia-smi-topo-m-a100-8gpu-nv12-1.txt"));
  REQUIRE(a);
  CHECK(a->rows.size() == 8);
  CHECK(a->link("GPU4", "GPU5") == "NV12");
  CHECK(a->rows[4].cpu_affinity == "24-47");
  CHECK(parse::cpu_list(a->rows[4].cpu_affinity) == std::vector<std::pair<int, int>>{{24, 47}});
}

TEST_CASE("parse: nvidia-smi topo -m, 2 GPUs over NVLink and over the host bridge") {
  auto nv = parse::nvidia_smi_topo(realdata("nvidia-smi-topo-m-2gpu-nvlink-nv2-1.txt"));
  REQUIRE(nv);
  CHECK(nv->devices == std::vector<std::string>{"GPU0", "GPU1"});
  CHECK(nv->link("GPU1", "GPU0") == "NV2");
  CHECK(nv->rows[1].cpu_affinity == "0-23");
  CHECK(nv->rows[1].numa_affinity == "N/A");

  auto phb = parse::nvidia_smi_topo(realdata("nvidia-smi-topo-m-2gpu-pcie-phb-1.txt"));
  REQUIRE(phb);
  CHECK(phb->link("GPU0", "GPU1") == "PHB");
  CHECK(parse::topo_link(phb->link("GPU0", "GPU1")) == parse::TopoLink::phb);
  CHECK(parse::topo_link(phb->link("GPU0", "GPU0")) == parse::TopoLink::self);
  CHECK(parse::cpu_list(phb->rows[0].numa_affinity).size() == 0); // "N/A"
}

TEST_CASE("parse: nvidia-smi topo -m as the tool prints it: tabs, a NIC, GPU NUMA ID, legends") {
  // Inside vLLM's collect_env: the real tab-separated output with its extra empty cell before GPU NUMA ID.
  auto t = parse::nvidia_smi_topo(realdata("vllm-collect-env-cuda-h100-8gpu-1.txt"));
  REQUIRE(t);
  CHECK(t->devices.size() == 9);
  CHECK(t->devices.back() == "NIC0");
  REQUIRE(t->rows.size() == 9);
  CHECK(t->gpus().size() == 8);
  CHECK(t->link("GPU2", "NIC0") == "SYS");
  CHECK(t->link("NIC0", "NIC0") == "X");
  CHECK(t->rows[0].cpu_affinity == "0-103");
  CHECK(t->rows[0].numa_affinity == "0");
  CHECK(t->rows[0].gpu_numa_id == "N/A");
  CHECK(t->rows[5].cpu_affinity == "104-207");
  CHECK(t->rows[8].cpu_affinity.empty()); // the NIC row has empty affinity cells
  CHECK(t->nic_names == std::map<std::string, std::string>{{"NIC0", "mlx5_0"}});

  // Hand-made: a terminal run underlines the header; old drivers name NICs in the header and print SOC.
  auto old = parse::nvidia_smi_topo("\t\x1b[4mGPU0\tGPU1\tmlx5_0\tCPU Affinity\x1b[0m\n"
                                    "GPU0\t X \tSOC\tPIX\t0-11,24-35\nGPU1\tSOC\t X \tSOC\t12-23,36-47\n"
                                    "mlx5_0\tPIX\tSOC\t X \t\n\nLegend:\n\n  X   = Self\n");
  REQUIRE(old);
  CHECK(old->devices == std::vector<std::string>{"GPU0", "GPU1", "mlx5_0"});
  CHECK(old->link("GPU0", "mlx5_0") == "PIX");
  CHECK(parse::topo_link(old->link("GPU0", "GPU1")) == parse::TopoLink::sys);
  CHECK(old->rows[1].cpu_affinity == "12-23,36-47");
  CHECK(old->rows[1].numa_affinity.empty());
  CHECK(parse::cpu_list(old->rows[1].cpu_affinity) == std::vector<std::pair<int, int>>{{12, 23}, {36, 47}});

  CHECK_FALSE(parse::nvidia_smi_topo(""));
  CHECK_FALSE(parse::nvidia_smi_topo("No devices were found\n"));
  CHECK(parse::topo_link("NV") == parse::TopoLink::unknown);
  CHECK(parse::topo_link("NODE") == parse::TopoLink::node);
  CHECK(parse::cpu_list("3-1").empty());
  CHECK(parse::cpu_list("5") == std::vector<std::pair<int, int>>{{5, 5}});
}

TEST_CASE("parse: rocm-smi GFX Version, the gfx9010 trap") {
  CHECK(parse::rocm_smi_gfx_target("gfx9010") == "gfx90a");
  CHECK(parse::rocm_smi_gfx_target("gfx9012") == "gfx90c");
  CHECK(parse::rocm_smi_gfx_target("gfx1100") == "gfx1100");
  CHECK(parse::rocm_smi_gfx_target("gfx942") == "gfx942");
  CHECK(parse::rocm_smi_gfx_target("gfx90a") == "gfx90a");
  CHECK(parse::rocm_smi_gfx_target("gfx942:sramecc+:xnack-") == "gfx942");
  CHECK(parse::rocm_smi_gfx_target("gfx9099").empty()); // stepping 99 is no hex digit
  CHECK(parse::rocm_smi_gfx_target("N/A").empty());
  CHECK(parse::gfx_target_version_of("gfx90a") == 90010);
  CHECK(parse::gfx_target_version_of("gfx9010") == 90010);
  CHECK(parse::gfx_target_version_of("gfx1100") == 110000);
  CHECK(parse::gfx_target_version_of("gfx1036") == 100306);
  CHECK(parse::gfx_target_version_of("gfx942") == 90402);
  CHECK_FALSE(parse::gfx_target_version_of("sm_90"));

  auto r = parse::rocm_smi_json(realdata("rocm-smi-json-productname-mi250x-gfx9010-1.json"));
  REQUIRE(r);
  REQUIRE(r->cards.size() == 1);
  const auto& c = r->cards[0];
  CHECK(c.card == "card0");
  CHECK(c.gfx_version == "gfx9010");
  CHECK(c.gfx_target == "gfx90a");
  CHECK(c.card_series == "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2");
  CHECK(c.card_model == "0x7408");
  CHECK(c.card_sku == "D65201");
  CHECK(c.subsystem_id == "0x0b0c");
  CHECK(c.device_rev == "0x00");
  CHECK(c.node_id == 7);
  CHECK(r->driver_version.empty());
}

TEST_CASE("parse: rocm-smi --json, MI100 on ROCm 5.7.1 and 6.0.2, Vega 20") {
  auto old = parse::rocm_smi_json(realdata("rocm-smi-json-mi100-rocm571-1.json"));
  REQUIRE(old);
  CHECK(old->cards.size() == 6);
  CHECK(old->driver_version == "6.2.4");
  CHECK(old->cards[0].device_id == "0x738c"); // "GPU ID" in this release
  CHECK(old->cards[0].bdf == "0000:1e:00.0");
  CHECK(old->cards[0].unique_id.empty()); // "N/A"
  CHECK(old->cards[0].card_series == "Arcturus GL-XL [Instinct MI100]");
  CHECK(old->cards[0].vram_total_bytes == 34342961152LL);
  CHECK(old->cards[0].vram_used_bytes == 6782976);
  CHECK(old->cards[0].numa_node == 0);

  auto r = parse::rocm_smi_json(realdata("rocm-smi-json-mi100-rocm602-1.json"));
  REQUIRE(r);
  REQUIRE(r->cards.size() == 4);
  CHECK(r->driver_version == "6.3.6");
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(r->cards[i].card == "card" + std::to_string(i));
  CHECK(r->cards[0].device_id == "0x738c");
  CHECK(r->cards[0].device_rev == "0x1");
  CHECK(r->cards[0].unique_id == "0x79ccd55167a2124a");
  CHECK(r->cards[0].vbios_version == "113-D3431401-101");
  CHECK(r->cards[0].bdf == "0000:83:00.0");
  CHECK(r->cards[0].numa_node == 1);

  auto v = parse::rocm_smi_json(realdata("rocm-smi-json-vega20-1.json"));
  REQUIRE(v);
  REQUIRE(v->cards.size() == 1);
  CHECK(v->driver_version == "5.9.17");
  CHECK(v->cards[0].device_id == "0x66a1");
  CHECK(v->cards[0].card_series == "Radeon Instinct MI50 32GB");
  CHECK(v->cards[0].serial == "692024000810");

  // Cards sort by number, not as strings.
  auto many = parse::rocm_smi_json(R"({"card10": {"Device ID": "0xa"}, "card2": {"Device ID": "0x2"}})");
  REQUIRE(many);
  REQUIRE(many->cards.size() == 2);
  CHECK(many->cards[0].card == "card2");
  CHECK_FALSE(parse::rocm_smi_json("WARNING: No AMD GPUs specified\n"));
  CHECK_FALSE(parse::rocm_smi_json("{}"));
  CHECK_FALSE(parse::rocm_smi_json("[1, 2]"));
}

TEST_CASE("parse: rocm-smi --csv and tables") {
  auto kernel = parse::rocm_smi_csv(realdata("rocm-smi-csv-driverversion-inkernel-1.txt"));
  REQUIRE(kernel);
  CHECK(kernel->cards.empty());
  CHECK(kernel->driver_version == "4.18.0-348.12.2.el8_5.x86_64"); // the in-tree driver: the kernel's release

  auto names = parse::rocm_smi_csv(realdata("rocm-smi-csv-productname-mi100-1.txt"));
  REQUIRE(names);
  REQUIRE(names->cards.size() == 2);
  CHECK(names->cards[1].card == "card1");
  CHECK(names->cards[1].card_series == "Arcturus GL-XL [AMD Instinct MI100]");
  CHECK(names->cards[1].card_model == "0x0c34");
  CHECK(names->cards[1].card_vendor == "Advanced Micro Devices Inc. [AMD/ATI]");
  CHECK(names->cards[1].card_sku == "D34316");
  auto quoted = parse::rocm_smi_csv("device,Card vendor\ncard0,\"Advanced Micro Devices, Inc.\"\n");
  REQUIRE(quoted);
  CHECK(quoted->cards[0].card_vendor == "Advanced Micro Devices, Inc.");
  CHECK_FALSE(parse::rocm_smi_csv(""));

  auto concise = parse::rocm_smi_table(realdata("rocm-smi-concise-mi300x-8gpu-1.txt"));
  REQUIRE(concise);
  REQUIRE(concise->cards.size() == 8);
  for (const auto& c : concise->cards) {
    CAPTURE(c.card);
    CHECK(c.device_id == "0x74a1");
    CHECK(c.device_rev == "0x00");
    CHECK(c.device_name == "AMD Instinct MI300X");
    CHECK(c.partitions == "NPS1, SPX");
  }
  CHECK(concise->cards[7].card == "7");

  auto legacy = parse::rocm_smi_table(realdata("rocm-smi-default-legacy-vega6-apu-1.txt"));
  REQUIRE(legacy);
  REQUIRE(legacy->cards.size() == 1);
  CHECK(legacy->cards[0].card == "0");
  CHECK(legacy->cards[0].device_id.empty());
  CHECK(legacy->cards[0].device_name.empty());

  // ROCm 6.x default table, hand-made in its layout: a Node column and "(DID, GUID)".
  auto six = parse::rocm_smi_table(
      "Device  Node  IDs              Temp    Power  Partitions          SCLK  MCLK  Fan  Perf  PwrCap  "
      "VRAM%  GPU%\n"
      "              (DID,     GUID)  (Edge)  (Avg)  (Mem, Compute, ID)\n"
      "=============================================================================================\n"
      "0       1     0x744c,   50012  34.0°C  13.0W  N/A, N/A, 0         0Mhz  96Mhz 0%   auto  327.0W  0%   "
      "  0%\n"
      "=============================================================================================\n");
  REQUIRE(six);
  REQUIRE(six->cards.size() == 1);
  CHECK(six->cards[0].node_id == 1);
  CHECK(six->cards[0].device_id == "0x744c");
  CHECK_FALSE(parse::rocm_smi_table("cat: /sys/module/amdgpu/initstate: No such file or directory\n"));
}

TEST_CASE("parse: amd-smi list and static, text") {
  auto list = parse::amd_smi_gpus(realdata("amd-smi-list-2gpu-1.txt"));
  REQUIRE(list.size() == 2);
  CHECK(list[0].gpu == 0);
  CHECK(list[0].bdf == "0000:23:00.0");
  CHECK(list[0].uuid == "<redacted>");
  CHECK(list[0].kfd_id == 45412);
  CHECK(list[0].node_id == 1);
  CHECK(list[0].partition_id == 0);
  CHECK(list[1].gpu == 1);
  CHECK(list[1].bdf == "0000:26:00.0");
  CHECK(list[1].kfd_id == 59881);
  CHECK(list[1].node_id == 2);

  auto asic = parse::amd_smi_gpus(realdata("amd-smi-static-asic-mi308x-1.txt"));
  REQUIRE(asic.size() == 1);
  CHECK(asic[0].market_name == "MI308X");
  CHECK(asic[0].vendor_id == "0x1002");
  CHECK(asic[0].device_id == "0x74a2");
  CHECK(asic[0].rev_id == "0x00");
  CHECK(asic[0].num_compute_units == 20);
  CHECK(asic[0].oam_id == 5);
  CHECK(asic[0].target_graphics_version == "gfx942");

  auto mi350 = parse::amd_smi_gpus(realdata("amd-smi-static-mi350x-gfx950-1.txt"));
  REQUIRE(mi350.size() == 1);
  const auto& g = mi350[0];
  CHECK(g.market_name == "AMD Instinct MI350X");
  CHECK(g.target_graphics_version == "gfx950");
  CHECK(g.device_id == "0x75a0");
  CHECK(g.num_compute_units == 128);
  CHECK(g.bdf == "0000:05:00.0");
  CHECK(g.driver_name == "amdgpu");
  CHECK(g.driver_version == "6.18.3"); // DRIVER: VERSION, not IFWI: VERSION
  CHECK(g.board_product_name == "AMD Instinct MI350 OAM");
  CHECK(g.vbios_version.empty()); // the excerpt has no VBIOS section

  auto part = parse::amd_smi_gpus(realdata("amd-smi-static-partition-cpx-nps4-1.txt"));
  REQUIRE(part.size() == 1);
  CHECK(part[0].compute_partition == "CPX");
  CHECK(part[0].memory_partition == "NPS4");
  CHECK(part[0].partition_id == 0);

  CHECK(parse::amd_smi_gpus(realdata("amd-smi-fail-wsl-no-amdgpu-module-1.txt")).empty());
  CHECK(parse::amd_smi_gpus("").empty());
}

TEST_CASE("parse: amd-smi --json, list and both static layouts") {
  // The topology JSON is a list of objects with "gpu" too: only the index is read from it.
  auto topo = parse::amd_smi_gpus(realdata("amd-smi-topology-json-2gpu-pcie-1.txt"));
  REQUIRE(topo.size() == 2);
  CHECK(topo[1].gpu == 1);
  CHECK(topo[1].bdf.empty());

  // Hand-made in the layouts amd-smi prints (ROCm 6.x list / static, and the newer "gpu_data" wrapper with
  // {"value", "unit"} numbers).
  auto list = parse::amd_smi_gpus(
      R"([{"gpu": 0, "bdf": "0000:C1:00.0", "uuid": "e5ff74a1-0000-1000-80e0-d1e7f1a0c0b4",
      "kfd_id": 45412, "node_id": 1, "partition_id": 0}])");
  REQUIRE(list.size() == 1);
  CHECK(list[0].bdf == "0000:c1:00.0");
  CHECK(list[0].kfd_id == 45412);
  CHECK(list[0].node_id == 1);

  auto old = parse::amd_smi_gpus(R"([{"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X",
      "vendor_id": "0x1002", "device_id": "0x74a1", "rev_id": "0x00", "num_compute_units": 304,
      "target_graphics_version": "gfx942"}, "bus": {"bdf": "0000:0c:00.0"},
      "vbios": {"name": "AMD MI300X_HW_SRIOV_CVS_1VF", "version": "022.040.003.043.000001"},
      "driver": {"name": "amdgpu", "version": "6.8.5"}, "vram": {"type": "HBM", "size": "196592 MB"}}])");
  REQUIRE(old.size() == 1);
  CHECK(old[0].market_name == "AMD Instinct MI300X");
  CHECK(old[0].num_compute_units == 304);
  CHECK(old[0].target_graphics_version == "gfx942");
  CHECK(old[0].bdf == "0000:0c:00.0");
  CHECK(old[0].vbios_version == "022.040.003.043.000001");
  CHECK(old[0].driver_name == "amdgpu");
  CHECK(old[0].driver_version == "6.8.5");
  CHECK(old[0].vram_type == "HBM");
  CHECK(old[0].vram_size_mb == 196592);

  auto wrapped = parse::amd_smi_gpus(R"({"gpu_data": [{"gpu": 1, "asic": {"market_name": "N/A",
      "target_graphics_version": "gfx1201"}, "vram": {"type": "GDDR6", "size": {"value": 32, "unit": "GB"}},
      "partition": {"compute_partition": "N/A", "memory_partition": "N/A", "partition_id": 0}}]})");
  REQUIRE(wrapped.size() == 1);
  CHECK(wrapped[0].gpu == 1);
  CHECK(wrapped[0].market_name.empty());
  CHECK(wrapped[0].target_graphics_version == "gfx1201");
  CHECK(wrapped[0].vram_size_mb == 32 * 1024);
  CHECK(wrapped[0].compute_partition.empty());
  CHECK(wrapped[0].partition_id == 0);

  CHECK(parse::amd_smi_gpus("[").empty());
  CHECK(parse::amd_smi_gpus(R"({"gpu_data": 5})").empty());
}

TEST_CASE("parse: amd-smi version lines") {
  auto v = parse::amd_smi_version(realdata("amd-smi-version-1.txt"));
  REQUIRE(v);
  CHECK(v->tool == "23.4.2+505b858");
  CHECK(v->library == "24.2.0.0");
  CHECK(v->rocm == "6.1.0");
  CHECK(v->amdgpu.empty());

  auto banner = parse::amd_smi_version(realdata("amd-smi-default-mi300x-vf-1.txt"));
  REQUIRE(banner);
  CHECK(banner->tool == "26.2.2+97f5574fe2");
  CHECK(banner->amdgpu == "6.16.13");
  CHECK(banner->rocm == "7.2.4");

  CHECK_FALSE(parse::amd_smi_version(realdata("amd-smi-fail-wsl-no-amdgpu-module-1.txt")));
}

TEST_CASE("parse: KFD io_link properties, PCIe and XGMI") {
  auto pcie = parse::kfd_io_link_properties(realdata("kfd-iolink-properties-mi210-pcie-1.txt"));
  CHECK(pcie.pcie());
  CHECK_FALSE(pcie.xgmi());
  CHECK(pcie.node_from == 2);
  CHECK(pcie.node_to == 0);
  CHECK(pcie.weight == 20);
  CHECK(pcie.min_bandwidth == 312);
  CHECK(pcie.max_bandwidth == 32000);
  CHECK(pcie.flags == 1);
  CHECK(parse::kfd_io_link_type_name(*pcie.type) == "PCIe");

  auto xgmi = parse::kfd_io_link_properties(realdata("kfd-iolink-properties-mi210-xgmi-1.txt"));
  CHECK(xgmi.xgmi());
  CHECK(xgmi.node_from == 2);
  CHECK(xgmi.node_to == 3);
  CHECK(xgmi.weight == 15);
  CHECK(xgmi.max_bandwidth == 50000);
  CHECK(parse::kfd_io_link_type_name(11) == "XGMI");
  CHECK(parse::kfd_io_link_type_name(99) == "type 99");
  CHECK(parse::kfd_io_link_type_name(-1) == "type -1");

  auto none = parse::kfd_io_link_properties("");
  CHECK_FALSE(none.type);
  CHECK_FALSE(none.pcie());
}
