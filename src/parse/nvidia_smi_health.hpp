// Internal to src/parse: the health fields of `nvidia-smi -q` and `-q -x`, one table of names per form, so
// that the text and the XML give the same NvidiaGpuHealth.
#pragma once

#include "facts/nvidia_facts.hpp"

#include <optional>
#include <string_view>

namespace gpudoctor::parse::detail {

enum class HealthField {
  ecc_mode,
  volatile_uncorrectable, // added up: DRAM, SRAM, SRAM parity and SEC-DED, the older double-bit total
  aggregate_uncorrectable,
  volatile_correctable, // added up: DRAM, SRAM, the older single-bit total
  aggregate_correctable,
  retired_sbe,
  retired_dbe,
  retirement_pending,
  remapped_correctable,
  remapped_uncorrectable,
  remap_pending,
  remap_failure,
  reset_required,
  recovery_action,
  clock_reason, // an entry of the clocks event (throttle) reasons; the name is the reason
  fabric_state,
  fabric_status,
};

// The field of an XML element path below <gpu> (element names), or of a text key path below "GPU <bus id>"
// (section titles, then the key). `reason` names the clock reason of a clock_reason field.
std::optional<HealthField> xml_health_field(const std::string_view* path, std::size_t n,
                                            std::string_view& reason);
std::optional<HealthField> text_health_field(const std::string_view* path, std::size_t n,
                                             std::string_view& reason);

// Stores `value` ("3", "Yes", "Active", "N/A") in `h`; N/A and garbage leave it unset.
void set_health(NvidiaGpuHealth& h, HealthField f, std::string_view value, std::string_view reason);

} // namespace gpudoctor::parse::detail
