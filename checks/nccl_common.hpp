// What the env.nccl-* and env.rccl-* checks share: the NCCL settings in effect (environment first, then
// NCCL's configuration files in the order NCCL reads them) and NCCL's way of reading numbers.
#pragma once

#include "engine/check.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::checks {

struct NcclSetting {
  std::string name; // as set; from a file it may carry blanks ("NCCL_DEBUG " from "NCCL_DEBUG = INFO")
  std::string value;
  std::string file; // the configuration file; empty: the environment
  int line = 0;
  std::string evidence() const; // "env NCCL_DEBUG=INFO", "file /etc/nccl.conf:3: NCCL_ALGO=Rings"
  std::string where() const;    // "the environment", "/etc/nccl.conf line 3"
  // What to do: set it to `value`, or remove it (nullopt); under `rename`, under that name. A command for
  // the environment ("unset NCCL_ALGO"), a step naming the file and line for a configuration file.
  Action change(const std::optional<std::string>& value, const std::string& rename = {}) const;
};

// Every NCCL_*/RCCL_* setting NCCL would see, one per name, in name order: a variable of the environment,
// else the first file that sets it ($NCCL_CONF_FILE or ~/.nccl.conf before /etc/nccl.conf). File names are
// compared trimmed, so "NCCL_DEBUG " counts as an NCCL name.
std::vector<NcclSetting> nccl_settings(const Facts& f);
std::optional<NcclSetting> nccl_setting(const Facts& f, const std::string& name);

// strtoll(value, nullptr, 0), as NCCL_PARAM reads a number: leading blanks and a sign, 0x hex and 0 octal;
// reading stops at the first character that is not part of the number.
struct NcclNumber {
  long long value = 0;
  bool digits = false;   // a number was read at all ("abc": no, value 0)
  bool complete = false; // the whole value was the number ("20s": no)
  bool overflow = false; // out of range (NCCL then keeps its default)
  bool octal = false;    // read as octal ("010" is 8)
};
NcclNumber nccl_number(const std::string& value);

// Why NCCL cannot use `value` for the variable `row` describes, as env.nccl-invalid says it; empty when the
// value is in the variable's domain (defined in env_nccl.cpp).
std::string nccl_value_problem(const NcclVarRow& row, const std::string& value);

// A value for a message: control characters shown as \r, \t, \xNN.
std::string printable(const std::string& value);

// GPUs of NVIDIA and AMD on the bus, whatever their driver.
std::size_t gpu_count(const Facts& f);

} // namespace gpudoctor::checks
