// GPU memory, clock and fabric health from nvidia-smi -q (text) and -q -x (XML): real samples, and one GPU's
// state written in both forms giving the same facts.
#include "parse/parsers.hpp"
#include "unit/test_parse_util.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;
using gpudoctor::test::realdata;

namespace {

void check_same(const NvidiaGpuHealth& a, const NvidiaGpuHealth& b) {
  CHECK(a.ecc_mode == b.ecc_mode);
  CHECK(a.volatile_uncorrectable == b.volatile_uncorrectable);
  CHECK(a.aggregate_uncorrectable == b.aggregate_uncorrectable);
  CHECK(a.retired_sbe == b.retired_sbe);
  CHECK(a.retired_dbe == b.retired_dbe);
  CHECK(a.retirement_pending == b.retirement_pending);
  CHECK(a.remapped_correctable == b.remapped_correctable);
  CHECK(a.remapped_uncorrectable == b.remapped_uncorrectable);
  CHECK(a.remap_pending == b.remap_pending);
  CHECK(a.remap_failure == b.remap_failure);
  CHECK(a.reset_required == b.reset_required);
  CHECK(a.recovery_action == b.recovery_action);
  CHECK(a.clocks_held_by == b.clocks_held_by);
  CHECK(a.fabric_state == b.fabric_state);
  CHECK(a.fabric_status == b.fabric_status);
}

// One H100 with a pending remap after an uncorrectable error, thermally slowed, fabric still training: the
// text in the 560 layout of nvidia-smi-q-h100-sxm-560-1.txt, the XML in the v12 layout of the telegraf
// samples.
const char* k_text = R"(
==============NVSMI LOG==============

Driver Version                            : 570.86.15
CUDA Version                              : 12.8

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    GPU Reset Status
        Reset Required                    : Yes
        Drain and Reset Recommended       : No
    GPU Recovery Action                   : Reset
    Clocks Event Reasons
        Idle                              : Not Active
        SW Power Cap                      : Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Active
            HW Power Brake Slowdown       : Not Active
        SW Thermal Slowdown               : Not Active
    ECC Mode
        Current                           : Enabled
        Pending                           : Enabled
    ECC Errors
        Volatile
            SRAM Correctable              : 0
            SRAM Uncorrectable Parity     : 0
            SRAM Uncorrectable SEC-DED    : 0
            DRAM Correctable              : 12
            DRAM Uncorrectable            : 2
        Aggregate
            SRAM Correctable              : 0
            SRAM Uncorrectable Parity     : 1
            SRAM Uncorrectable SEC-DED    : 0
            DRAM Correctable              : 40
            DRAM Uncorrectable            : 3
            SRAM Threshold Exceeded       : No
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
    Remapped Rows
        Correctable Error                 : 1
        Uncorrectable Error               : 2
        Pending                           : Yes
        Remapping Failure Occurred        : No
        Bank Remap Availability Histogram
            Max                           : 2558 bank(s)
    Fabric
        State                             : In Progress
        Status                            : N/A
)";

const char* k_xml = R"(<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<driver_version>570.86.15</driver_version>
	<cuda_version>12.8</cuda_version>
	<attached_gpus>1</attached_gpus>
	<gpu id="00000000:18:00.0">
		<product_name>NVIDIA H100 80GB HBM3</product_name>
		<gpu_reset_status>
			<reset_required>Yes</reset_required>
			<drain_and_reset_recommended>No</drain_and_reset_recommended>
		</gpu_reset_status>
		<gpu_recovery_action>Reset</gpu_recovery_action>
		<clocks_event_reasons>
			<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
			<clocks_event_reason_sw_power_cap>Active</clocks_event_reason_sw_power_cap>
			<clocks_event_reason_hw_slowdown>Active</clocks_event_reason_hw_slowdown>
			<clocks_event_reason_hw_thermal_slowdown>Active</clocks_event_reason_hw_thermal_slowdown>
			<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>
			<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
		</clocks_event_reasons>
		<ecc_mode>
			<current_ecc>Enabled</current_ecc>
			<pending_ecc>Enabled</pending_ecc>
		</ecc_mode>
		<ecc_errors>
			<volatile>
				<sram_correctable>0</sram_correctable>
				<sram_uncorrectable_parity>0</sram_uncorrectable_parity>
				<sram_uncorrectable_secded>0</sram_uncorrectable_secded>
				<dram_correctable>12</dram_correctable>
				<dram_uncorrectable>2</dram_uncorrectable>
			</volatile>
			<aggregate>
				<sram_correctable>0</sram_correctable>
				<sram_uncorrectable_parity>1</sram_uncorrectable_parity>
				<sram_uncorrectable_secded>0</sram_uncorrectable_secded>
				<dram_correctable>40</dram_correctable>
				<dram_uncorrectable>3</dram_uncorrectable>
				<sram_threshold_exceeded>No</sram_threshold_exceeded>
			</aggregate>
		</ecc_errors>
		<retired_pages>
			<multiple_single_bit_retirement>
				<retired_count>N/A</retired_count>
				<retired_pagelist>N/A</retired_pagelist>
			</multiple_single_bit_retirement>
			<double_bit_retirement>
				<retired_count>N/A</retired_count>
				<retired_pagelist>N/A</retired_pagelist>
			</double_bit_retirement>
			<pending_blacklist>N/A</pending_blacklist>
			<pending_retirement>N/A</pending_retirement>
		</retired_pages>
		<remapped_rows>
			<remapped_row_corr>1</remapped_row_corr>
			<remapped_row_unc>2</remapped_row_unc>
			<remapped_row_pending>Yes</remapped_row_pending>
			<remapped_row_failure>No</remapped_row_failure>
			<row_remapper_histogram>
				<row_remapper_histogram_max>2558 bank(s)</row_remapper_histogram_max>
			</row_remapper_histogram>
		</remapped_rows>
		<fabric>
			<state>In Progress</state>
			<status>N/A</status>
		</fabric>
	</gpu>
</nvidia_smi_log>
)";

} // namespace

TEST_CASE("parse: nvidia-smi -q and -q -x give the same health facts for one GPU") {
  auto text = parse::nvidia_smi_query(k_text);
  auto xml = parse::nvidia_smi_xml(k_xml);
  REQUIRE(text);
  REQUIRE(xml);
  REQUIRE(text->gpus.size() == 1);
  REQUIRE(xml->gpus.size() == 1);
  const auto& h = text->gpus[0].health;
  CHECK(h.ecc_mode == "Enabled");
  CHECK(h.volatile_uncorrectable == 2);
  CHECK(h.aggregate_uncorrectable == 4); // DRAM 3 + SRAM parity 1
  CHECK_FALSE(h.retired_sbe);            // N/A: Ampere and later remap rows instead
  CHECK_FALSE(h.retirement_pending);
  CHECK(h.remapped_correctable == 1);
  CHECK(h.remapped_uncorrectable == 2);
  CHECK(h.remap_pending == true);
  CHECK(h.remap_failure == false);
  CHECK(h.reset_required == true);
  CHECK(h.recovery_action == "Reset");
  // SW Power Cap is a normal limit under load; only slowdowns and the power brake count.
  CHECK(h.clocks_held_by == std::vector<std::string>{"HW Slowdown", "HW Thermal Slowdown"});
  CHECK(h.fabric_state == "In Progress");
  CHECK(h.fabric_status == "N/A");
  check_same(h, xml->gpus[0].health);
}

TEST_CASE("parse: nvidia-smi health of real samples") {
  // H100 on an NVSwitch system, 560: healthy, fabric trained.
  auto h100 = parse::nvidia_smi_query(realdata("nvidia-smi-q-h100-sxm-560-1.txt"));
  REQUIRE(h100);
  const auto& h = h100->gpus.at(0).health;
  CHECK(h.ecc_mode == "Enabled");
  CHECK(h.volatile_uncorrectable == 0);
  CHECK(h.aggregate_uncorrectable == 0);
  CHECK(h.remap_pending == false);
  CHECK(h.reset_required == false);
  CHECK(h.clocks_held_by.empty());
  CHECK(h.fabric_state == "Completed");
  CHECK(h.fabric_status == "Success");
  CHECK_FALSE(h.recovery_action); // 560 has no such field

  // The A100 excerpt a poster cut with "[...]": a pending remap after correctable errors.
  auto a100 = parse::nvidia_smi_query(realdata("nvidia-smi-q-excerpt-a100-ecc-row-remap-pending-1.txt"));
  REQUIRE(a100);
  const auto& a = a100->gpus.at(0).health;
  CHECK(a.remap_pending == true);
  CHECK(a.remapped_correctable == 1);
  CHECK(a.volatile_uncorrectable == 0);
  CHECK_FALSE(a.ecc_mode); // cut by the poster

  // XML: v13 (RTX 3080, no ECC: N/A everywhere), v12 A100 (remapped_rows N/A under MIG), old 418 (throttle).
  auto v13 = parse::nvidia_smi_xml(realdata("nvidia-smi-q-x-rtx3080-schema-v13-1.xml"));
  REQUIRE(v13);
  const auto& g = v13->gpus.at(0).health;
  CHECK_FALSE(g.ecc_mode);
  CHECK_FALSE(g.volatile_uncorrectable);
  CHECK(g.recovery_action == "None");
  CHECK(g.fabric_state == "N/A");
  CHECK(g.clocks_held_by.empty());
  auto a10g = parse::nvidia_smi_xml(realdata("nvidia-smi-q-x-a10g-1.xml"));
  REQUIRE(a10g);
  CHECK(a10g->gpus.at(0).health.clocks_held_by.empty()); // only gpu_idle is Active
}

TEST_CASE("parse: nvidia-smi health, older forms: double-bit totals, retired pages, throttle reasons") {
  auto text = parse::nvidia_smi_query("Driver Version : 418.43\n"
                                      "GPU 00000000:01:00.0\n"
                                      "    Clocks Throttle Reasons\n"
                                      "        HW Slowdown                 : Not Active\n"
                                      "            HW Power Brake Slowdown : Active\n"
                                      "    ECC Errors\n"
                                      "        Volatile\n"
                                      "            Double Bit\n"
                                      "                Device Memory       : 1\n"
                                      "                Total               : 1\n"
                                      "    Retired Pages\n"
                                      "        Single Bit ECC              : 2\n"
                                      "        Double Bit ECC              : 1\n"
                                      "        Pending Page Blacklist      : Yes\n");
  REQUIRE(text);
  const auto& h = text->gpus.at(0).health;
  CHECK(h.volatile_uncorrectable == 1);
  CHECK(h.retired_sbe == 2);
  CHECK(h.retired_dbe == 1);
  CHECK(h.retirement_pending == true);
  CHECK(h.clocks_held_by == std::vector<std::string>{"HW Power Brake Slowdown"});

  auto xml = parse::nvidia_smi_xml(
      "<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><clocks_throttle_reasons>"
      "<clocks_throttle_reason_hw_power_brake_slowdown>Active</"
      "clocks_throttle_reason_hw_power_brake_slowdown>"
      "</clocks_throttle_reasons><ecc_errors><volatile><double_bit><device_memory>1</device_memory>"
      "<total>1</total></double_bit></volatile></ecc_errors><retired_pages><multiple_single_bit_retirement>"
      "<retired_count>2</retired_count></multiple_single_bit_retirement><double_bit_retirement>"
      "<retired_count>1</retired_count></double_bit_retirement><pending_retirement>Yes</pending_retirement>"
      "</retired_pages></gpu></nvidia_smi_log>");
  REQUIRE(xml);
  check_same(h, xml->gpus.at(0).health);
}
