// The health fields of nvidia-smi's query, by XML element path and by text key path. Names as nvidia-smi
// prints them: DTD v10-v13 (older drivers: double_bit totals, clocks_throttle_reasons) and the text of
// drivers 418-610.
#include "parse/nvidia_smi_health.hpp"

#include "parse/scan.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>

namespace gpudoctor::parse::detail {

namespace {

using F = HealthField;

bool is(const std::string_view* path, std::size_t n, std::initializer_list<std::string_view> want) {
  return n == want.size() && std::equal(want.begin(), want.end(), path);
}

bool any_of(std::string_view s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

// XML clock reason element suffix -> the name nvidia-smi's text prints.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> k_xml_reasons = {{
    {"hw_slowdown", "HW Slowdown"},
    {"hw_thermal_slowdown", "HW Thermal Slowdown"},
    {"hw_power_brake_slowdown", "HW Power Brake Slowdown"},
    {"sw_thermal_slowdown", "SW Thermal Slowdown"},
}};

std::optional<bool> yes_no(std::string_view v) {
  if (v == "Yes") return true;
  if (v == "No") return false;
  return std::nullopt;
}

} // namespace

std::optional<HealthField> xml_health_field(const std::string_view* p, std::size_t n,
                                            std::string_view& reason) {
  if (n == 0) return std::nullopt;
  if (is(p, n, {"ecc_mode", "current_ecc"})) return F::ecc_mode;
  if (n >= 3 && p[0] == "ecc_errors" && (p[1] == "volatile" || p[1] == "aggregate")) {
    bool counted = (n == 3 && any_of(p[2], {"dram_uncorrectable", "sram_uncorrectable",
                                            "sram_uncorrectable_parity", "sram_uncorrectable_secded"})) ||
                   (n == 4 && p[2] == "double_bit" && p[3] == "total");
    if (counted) return p[1] == "volatile" ? F::volatile_uncorrectable : F::aggregate_uncorrectable;
    bool corrected = (n == 3 && any_of(p[2], {"dram_correctable", "sram_correctable"})) ||
                     (n == 4 && p[2] == "single_bit" && p[3] == "total");
    if (corrected) return p[1] == "volatile" ? F::volatile_correctable : F::aggregate_correctable;
    return std::nullopt;
  }
  if (is(p, n, {"retired_pages", "multiple_single_bit_retirement", "retired_count"})) return F::retired_sbe;
  if (is(p, n, {"retired_pages", "double_bit_retirement", "retired_count"})) return F::retired_dbe;
  if (is(p, n, {"retired_pages", "pending_blacklist"}) || is(p, n, {"retired_pages", "pending_retirement"}))
    return F::retirement_pending;
  if (is(p, n, {"remapped_rows", "remapped_row_corr"})) return F::remapped_correctable;
  if (is(p, n, {"remapped_rows", "remapped_row_unc"})) return F::remapped_uncorrectable;
  if (is(p, n, {"remapped_rows", "remapped_row_pending"})) return F::remap_pending;
  if (is(p, n, {"remapped_rows", "remapped_row_failure"})) return F::remap_failure;
  if (is(p, n, {"gpu_reset_status", "reset_required"})) return F::reset_required;
  if (is(p, n, {"gpu_recovery_action"})) return F::recovery_action;
  if (is(p, n, {"fabric", "state"})) return F::fabric_state;
  if (is(p, n, {"fabric", "status"})) return F::fabric_status;
  if (n == 2 && (p[0] == "clocks_event_reasons" || p[0] == "clocks_throttle_reasons")) {
    for (auto [suffix, name] : k_xml_reasons)
      if (p[1].ends_with("reason_" + std::string(suffix))) {
        reason = name;
        return F::clock_reason;
      }
  }
  return std::nullopt;
}

std::optional<HealthField> text_health_field(const std::string_view* p, std::size_t n,
                                             std::string_view& reason) {
  if (n == 0) return std::nullopt;
  if (is(p, n, {"ECC Mode", "Current"})) return F::ecc_mode;
  if (n >= 3 && p[0] == "ECC Errors" && (p[1] == "Volatile" || p[1] == "Aggregate")) {
    bool counted = (n == 3 && any_of(p[2], {"DRAM Uncorrectable", "SRAM Uncorrectable",
                                            "SRAM Uncorrectable Parity", "SRAM Uncorrectable SEC-DED"})) ||
                   (n == 4 && p[2] == "Double Bit" && p[3] == "Total");
    if (counted) return p[1] == "Volatile" ? F::volatile_uncorrectable : F::aggregate_uncorrectable;
    bool corrected = (n == 3 && any_of(p[2], {"DRAM Correctable", "SRAM Correctable"})) ||
                     (n == 4 && p[2] == "Single Bit" && p[3] == "Total");
    if (corrected) return p[1] == "Volatile" ? F::volatile_correctable : F::aggregate_correctable;
    return std::nullopt;
  }
  if (is(p, n, {"Retired Pages", "Single Bit ECC"})) return F::retired_sbe;
  if (is(p, n, {"Retired Pages", "Double Bit ECC"})) return F::retired_dbe;
  if (is(p, n, {"Retired Pages", "Pending Page Blacklist"}) ||
      is(p, n, {"Retired Pages", "Pending Page Retirement"}))
    return F::retirement_pending;
  if (is(p, n, {"Remapped Rows", "Correctable Error"})) return F::remapped_correctable;
  if (is(p, n, {"Remapped Rows", "Uncorrectable Error"})) return F::remapped_uncorrectable;
  if (is(p, n, {"Remapped Rows", "Pending"})) return F::remap_pending;
  if (is(p, n, {"Remapped Rows", "Remapping Failure Occurred"})) return F::remap_failure;
  if (is(p, n, {"GPU Reset Status", "Reset Required"})) return F::reset_required;
  if (is(p, n, {"GPU Recovery Action"})) return F::recovery_action;
  if (is(p, n, {"Fabric", "State"})) return F::fabric_state;
  if (is(p, n, {"Fabric", "Status"})) return F::fabric_status;
  if (n >= 2 && (p[0] == "Clocks Event Reasons" || p[0] == "Clocks Throttle Reasons"))
    for (auto [suffix, name] : k_xml_reasons)
      if (p[n - 1] == name) {
        reason = name;
        return F::clock_reason;
      }
  return std::nullopt;
}

void set_health(NvidiaGpuHealth& h, HealthField f, std::string_view value, std::string_view reason) {
  value = trim_view(value);
  auto number = [&]() -> std::optional<long long> {
    auto v = text::to_int(value);
    if (!v || *v < 0) return std::nullopt;
    return v;
  };
  auto add = [&](std::optional<long long>& sink) {
    if (auto v = number()) sink = sink.value_or(0) + *v;
  };
  switch (f) {
  case F::ecc_mode:
    if (value == "Enabled" || value == "Disabled") h.ecc_mode = std::string(value);
    break;
  case F::volatile_uncorrectable:
    add(h.volatile_uncorrectable);
    break;
  case F::aggregate_uncorrectable:
    add(h.aggregate_uncorrectable);
    break;
  case F::volatile_correctable:
    add(h.volatile_correctable);
    break;
  case F::aggregate_correctable:
    add(h.aggregate_correctable);
    break;
  case F::retired_sbe:
    h.retired_sbe = number();
    break;
  case F::retired_dbe:
    h.retired_dbe = number();
    break;
  case F::retirement_pending:
    h.retirement_pending = yes_no(value);
    break;
  case F::remapped_correctable:
    h.remapped_correctable = number();
    break;
  case F::remapped_uncorrectable:
    h.remapped_uncorrectable = number();
    break;
  case F::remap_pending:
    h.remap_pending = yes_no(value);
    break;
  case F::remap_failure:
    h.remap_failure = yes_no(value);
    break;
  case F::reset_required:
    h.reset_required = yes_no(value);
    break;
  case F::recovery_action:
    if (!value.empty() && value != "N/A" && value.size() < 64) h.recovery_action = std::string(value);
    break;
  case F::clock_reason:
    if (value == "Active" &&
        std::find(h.clocks_held_by.begin(), h.clocks_held_by.end(), reason) == h.clocks_held_by.end())
      h.clocks_held_by.emplace_back(reason);
    break;
  case F::fabric_state:
    if (!value.empty() && value.size() < 64) h.fabric_state = std::string(value);
    break;
  case F::fabric_status:
    if (!value.empty() && value.size() < 64) h.fabric_status = std::string(value);
    break;
  }
}

} // namespace gpudoctor::parse::detail
