#include "checks/nccl_common.hpp"

#include "checks/common.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

namespace gpudoctor::checks {

std::string nccl_evidence(const Facts& f, const NcclSetting& s) {
  if (s.file.empty()) return env_evidence(f, s.name, printable(s.value));
  return fmt::format("file {}:{}: {}={}", s.file, s.line, printable(s.name), printable(s.value));
}

std::string nccl_where(const Facts& f, const NcclSetting& s) {
  if (!s.file.empty()) return fmt::format("{} line {}", s.file, s.line);
  auto where = profile_sets(f, s.name);
  return where.empty() ? "the environment" : fmt::format("the environment (set in {})", where.front());
}

Action nccl_change(const NcclSetting& s, const std::optional<std::string>& new_value,
                   const std::string& rename) {
  const std::string& target = rename.empty() ? s.name : rename;
  if (s.file.empty()) {
    if (!new_value) return Action::command({{"unset", s.name}});
    if (rename.empty()) return Action::command({{"export", target + "=" + *new_value}});
    return Action::command({{"unset", s.name}, {"export", target + "=" + *new_value}});
  }
  if (!new_value)
    return Action::step(fmt::format("Remove line {} ({}) from {}.", s.line, printable(s.name), s.file));
  return Action::step(fmt::format("Change line {} of {} to {}={}.", s.line, s.file, printable(target),
                                  printable(*new_value)));
}

const std::vector<NcclSetting>& nccl_settings(const Facts& f) {
  return f.env.nccl;
}

std::optional<NcclSetting> nccl_setting(const Facts& f, const std::string& name) {
  for (const auto& s : f.env.nccl)
    if (s.name == name) return s;
  return std::nullopt;
}

NcclNumber nccl_number(const std::string& value) {
  NcclNumber n;
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  n.value = std::strtoll(begin, &end, 0);
  n.overflow = errno == ERANGE;
  n.digits = end != begin;
  n.complete = n.digits && *end == '\0';
  // The first digit after blanks and a sign: "0" followed by another digit makes strtoll read octal.
  std::size_t i = 0;
  while (i < value.size() && (value[i] == ' ' || value[i] == '\t'))
    ++i;
  if (i < value.size() && (value[i] == '+' || value[i] == '-')) ++i;
  n.octal = n.digits && i + 1 < value.size() && value[i] == '0' && value[i + 1] >= '0' && value[i + 1] <= '7';
  return n;
}

std::string printable(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

std::size_t gpu_count(const CheckContext& ctx) {
  return ctx.facts.count(Vendor::nvidia) + discrete_amd_count(ctx);
}

// NCCL's findInterfaces / parseStringList: '^' then '=' apply to the whole list; empty entries are skipped.
IfList parse_iflist(std::string v) {
  IfList l;
  if (!v.empty() && v[0] == '^') l.exclude = true, v = v.substr(1);
  if (!v.empty() && v[0] == '=') l.exact = true, v = v.substr(1);
  for (const auto& entry : text::split(v, ',')) {
    std::string name = entry.substr(0, entry.find(':'));
    if (!name.empty()) l.names.push_back(name);
  }
  return l;
}

bool matches(const IfList& l, const std::string& interface) {
  bool hit = std::ranges::any_of(l.names, [&](const std::string& n) {
    return l.exact ? interface == n : text::starts_with(interface, n);
  });
  return hit != l.exclude;
}

} // namespace gpudoctor::checks
