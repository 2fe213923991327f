// What the env.nccl-* and env.rccl-* checks share: the NCCL settings in effect as results show and change
// them, and NCCL's way of reading numbers.
#pragma once

#include "engine/check.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::checks {

// An NCCL setting (Facts::env.nccl, resolved once by collect/link_facts) for a result:
// "env NCCL_DEBUG=INFO (set in /home/ada/.bashrc:4)", "file /etc/nccl.conf:3: NCCL_ALGO=Rings"
std::string nccl_evidence(const Facts& f, const NcclSetting& s);
// "the environment (set in /home/ada/.bashrc:4)", "the environment", "/etc/nccl.conf line 3"
std::string nccl_where(const Facts& f, const NcclSetting& s);
// What to do: set it to `value`, or remove it (nullopt); under `rename`, under that name. A command for the
// environment ("unset NCCL_ALGO"), a step naming the file and line for a configuration file.
Action nccl_change(const NcclSetting& s, const std::optional<std::string>& value,
                   const std::string& rename = {});

// Every NCCL_*/RCCL_* setting NCCL would see, one per name, in name order.
const std::vector<NcclSetting>& nccl_settings(const Facts& f);
std::optional<NcclSetting> nccl_setting(const Facts& f, const std::string& name);

// An NCCL_SOCKET_IFNAME value as NCCL reads it: '^' (exclude) then '=' (exact) apply to the whole list.
struct IfList {
  bool exclude = false, exact = false;
  std::vector<std::string> names; // the name part of each entry ("eth0" of "eth0:1234")
};
IfList parse_iflist(std::string v);
bool matches(const IfList& l, const std::string& interface);

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
std::size_t gpu_count(const CheckContext& ctx); // an integrated GPU beside a discrete one not counted

} // namespace gpudoctor::checks
