// Colours of the text outputs of `fleet` and `diff`, the same as the text report's: only when asked (a
// terminal without NO_COLOR). What is painted is already escaped (util/escape).
#pragma once

#include "engine/result.hpp"

#include <string>
#include <string_view>

namespace gpudoctor {

struct TermStyle {
  bool color = false;
  std::string paint(std::string_view code, std::string_view s) const {
    if (!color) return std::string(s);
    return "\033[" + std::string(code) + "m" + std::string(s) + "\033[0m";
  }
  // "✗ error", "! warn ", ... as the text report marks results.
  std::string mark(Status s) const {
    switch (s) {
    case Status::error:
      return paint("1;31", "✗ error");
    case Status::warn:
      return paint("1;33", "! warn ");
    case Status::info:
      return paint("36", "i info ");
    case Status::pass:
      return paint("32", "✓ pass ");
    case Status::skip:
      return paint("2", "- skip ");
    }
    return "?";
  }
};

} // namespace gpudoctor
