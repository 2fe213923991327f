// The one adapter over nlohmann-json: parsing returns `expected` instead of throwing. The value type, the
// limits and the getters are in util/json_value.hpp (no <expected> there: docs/fuzzing.md).
#pragma once

#include "util/json_value.hpp"

#include <expected>
#include <string>
#include <string_view>

namespace gpudoctor {

inline std::expected<Json, std::string> parse_json(std::string_view text, const JsonLimits& limits = {}) {
  Json j;
  std::string error;
  if (!parse_json_into(text, j, error, limits)) return std::unexpected(std::move(error));
  return j;
}

} // namespace gpudoctor
