#include "checks/nccl_common.hpp"

#include "util/text.hpp"

#include <cerrno>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool nccl_name(const std::string& name) {
  std::string t = text::trim(name);
  return text::starts_with(t, "NCCL_") || text::starts_with(t, "RCCL_");
}

} // namespace

std::string NcclSetting::evidence() const {
  if (file.empty()) return fmt::format("env {}={}", name, printable(value));
  return fmt::format("file {}:{}: {}={}", file, line, printable(name), printable(value));
}

std::string NcclSetting::where() const {
  return file.empty() ? "the environment" : fmt::format("{} line {}", file, line);
}

Action NcclSetting::change(const std::optional<std::string>& new_value, const std::string& rename) const {
  const std::string& target = rename.empty() ? name : rename;
  if (file.empty()) {
    if (!new_value) return Action::command({{"unset", name}});
    if (rename.empty()) return Action::command({{"export", target + "=" + *new_value}});
    return Action::command({{"unset", name}, {"export", target + "=" + *new_value}});
  }
  if (!new_value)
    return Action::step(fmt::format("Remove line {} ({}) from {}.", line, printable(name), file));
  return Action::step(
      fmt::format("Change line {} of {} to {}={}.", line, file, printable(target), printable(*new_value)));
}

std::vector<NcclSetting> nccl_settings(const Facts& f) {
  std::map<std::string, NcclSetting> seen;
  for (const auto& [name, value] : f.env.all)
    if (nccl_name(name)) seen.emplace(name, NcclSetting{name, value, "", 0});
  // setenv(name, value, 0): the environment and earlier files win.
  for (const auto& file : f.env.nccl_conf)
    for (const auto& s : file.settings)
      if (nccl_name(s.name)) seen.emplace(s.name, NcclSetting{s.name, s.value, file.path, s.line});
  std::vector<NcclSetting> out;
  for (auto& [name, s] : seen)
    out.push_back(std::move(s));
  return out;
}

std::optional<NcclSetting> nccl_setting(const Facts& f, const std::string& name) {
  for (auto& s : nccl_settings(f))
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

std::size_t gpu_count(const Facts& f) {
  return f.count(Vendor::nvidia) + f.count(Vendor::amd);
}

} // namespace gpudoctor::checks
