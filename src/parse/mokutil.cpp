// `mokutil --sb-state`. The first recognised line decides; "Setup Mode" and the shim's own switch are
// extra lines that can follow "SecureBoot enabled/disabled".
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

SecureBoot mokutil_sb_state(std::string_view text) {
  SecureBoot out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    std::string lower = text::lower(line.substr(0, 256));
    if (lower.find("setup mode") != std::string::npos) out.setup_mode = true;
    if (lower.find("validation is disabled in shim") != std::string::npos)
      out.shim_validation_disabled = true;
    if (out.state != SecureBoot::State::unknown) return;
    using S = SecureBoot::State;
    if (lower == "secureboot enabled")
      out.state = S::enabled;
    else if (lower == "secureboot disabled")
      out.state = S::disabled;
    else if (lower.find("doesn't support secure boot") != std::string::npos ||
             lower.find("does not support secure boot") != std::string::npos)
      out.state = S::unsupported;
    else if (lower.find("efi variables are not supported") != std::string::npos)
      out.state = S::no_efi;
    if (out.state != S::unknown) out.line = std::string(line.substr(0, 256));
  });
  return out;
}

} // namespace gpudoctor::parse
