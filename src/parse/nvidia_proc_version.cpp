#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

// After "NVRM version:": "NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 ..." (proprietary) or
// "NVIDIA UNIX Open Kernel Module for x86_64  525.60.11  Release Build ..." (open, also Jetson's L4T).
bool parse_nvrm(std::string_view rest, NvidiaProcVersion& out) {
  out.open = rest.find("Open Kernel Module") != std::string_view::npos;
  std::size_t km = rest.find("Kernel Module");
  std::size_t pos = 0;
  if (km != std::string_view::npos) {
    if (!out.open) {
      std::size_t unix_at = rest.substr(0, km).find("UNIX");
      if (unix_at != std::string_view::npos)
        out.arch = detail::trim_view(rest.substr(unix_at + 4, km - unix_at - 4));
    }
    pos = km + 13;
    std::size_t probe = pos;
    if (detail::next_token(rest, probe) == "for") {
      out.arch = std::string(detail::next_token(rest, probe));
      pos = probe;
    }
  }
  for (int i = 0; i < 8 && pos < rest.size(); ++i) {
    std::string_view tok = detail::next_token(rest, pos);
    if (detail::looks_like_version(tok)) {
      out.version = std::string(tok);
      return true;
    }
  }
  return false;
}

} // namespace

std::optional<NvidiaProcVersion> nvidia_proc_version(std::string_view text) {
  NvidiaProcVersion out;
  bool found = false;
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    if (!found && t.starts_with("NVRM version:"))
      found = parse_nvrm(t.substr(13), out);
    else if (out.gcc.empty() && t.starts_with("GCC version:"))
      out.gcc = std::string(detail::trim_view(t.substr(12)));
  });
  if (!found) return std::nullopt;
  return out;
}

} // namespace gpudoctor::parse
