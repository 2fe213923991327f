// `dkms status`. dkms 3.x: "amdgpu/6.16.6-2255209.24.04, 6.17.0-5-generic, x86_64: installed (Original
// modules exist)"; dkms 2.x: "amdgpu, 6.3.6, 5.15.0-91-generic, x86_64: installed"; added-only entries name
// no kernel ("nvidia/550.54.14: added"). Anything else ("Error! Could not locate dkms.conf file.") is kept
// as a message.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_dkms_lines = 100000;

std::vector<std::string_view> comma_parts(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    std::size_t comma = s.find(',');
    out.push_back(detail::trim_view(s.substr(0, comma)));
    if (comma == std::string_view::npos || out.size() > 8) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  for (char c : s)
    if (detail::is_space(c) || c == ':' || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

std::optional<DkmsEntry> entry(std::string_view line) {
  std::size_t colon = line.find(": ");
  if (colon == std::string_view::npos && line.ends_with(':')) colon = line.size() - 1;
  if (colon == std::string_view::npos) return std::nullopt;
  auto parts = comma_parts(line.substr(0, colon));
  DkmsEntry e;
  std::size_t next = 1;
  if (std::size_t slash = parts[0].find('/'); slash != std::string_view::npos) {
    e.module = std::string(parts[0].substr(0, slash));
    e.version = std::string(parts[0].substr(slash + 1));
  } else if (parts.size() >= 2) {
    e.module = std::string(parts[0]);
    e.version = std::string(parts[1]);
    next = 2;
  }
  if (!valid_name(e.module) || !valid_name(e.version) || parts.size() > next + 2) return std::nullopt;
  if (next < parts.size()) e.kernel = std::string(parts[next]);
  if (next + 1 < parts.size()) e.arch = std::string(parts[next + 1]);
  if ((!e.kernel.empty() && !valid_name(e.kernel)) || (!e.arch.empty() && !valid_name(e.arch)))
    return std::nullopt;
  std::string_view rest = detail::trim_view(line.substr(colon + 1));
  std::size_t pos = 0;
  std::string_view state = detail::next_token(rest, pos);
  if (state.empty() || state.starts_with('(')) return std::nullopt;
  e.state = std::string(state);
  e.detail = std::string(detail::trim_view(rest.substr(pos)));
  return e;
}

} // namespace

DkmsStatus dkms_status(std::string_view text) {
  DkmsStatus out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    if (line.empty() || out.entries.size() + out.messages.size() >= k_max_dkms_lines) return;
    if (auto e = entry(line))
      out.entries.push_back(std::move(*e));
    else
      out.messages.emplace_back(line.substr(0, 512));
  });
  return out;
}

} // namespace gpudoctor::parse
