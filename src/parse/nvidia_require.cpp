// NVIDIA_REQUIRE_* (the container toolkit's requirement language, libnvidia-container src/cli/dsl.c at
// 63d366ee): the value split on spaces into alternatives, each split on commas into constraints; the key runs
// to the first of "<>=!", the operator is the run of those characters, the rest is a non-empty value.
#include "parse/parsers_layer.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_terms = 64, k_max_constraints = 16;

bool version_text(std::string_view v) {
  return !v.empty() && v.size() <= 32 &&
         std::ranges::all_of(v, [](char c) { return detail::is_digit(c) || c == '.'; });
}

std::optional<NvidiaRequireConstraint> constraint_of(std::string_view c) {
  std::size_t op_at = c.find_first_of("<>=!");
  if (op_at == 0 || op_at == std::string_view::npos) return std::nullopt;
  std::size_t value_at = c.find_first_not_of("<>=!", op_at);
  if (value_at == std::string_view::npos) return std::nullopt;
  NvidiaRequireConstraint r{text::lower(c.substr(0, op_at)), std::string(c.substr(op_at, value_at - op_at)),
                            std::string(c.substr(value_at, 64))};
  static constexpr std::array<std::string_view, 6> k_ops = {"=", "!=", "<", "<=", ">", ">="};
  if (std::ranges::find(k_ops, r.op) == k_ops.end()) return std::nullopt;
  if (r.key == "brand") {
    if (r.op != "=" && r.op != "!=") return std::nullopt;
  } else if (r.key == "cuda" || r.key == "driver" || r.key == "arch") {
    if (!version_text(r.value)) return std::nullopt;
  } else {
    return std::nullopt; // an unknown key: the C evaluator fails the whole value
  }
  return r;
}

} // namespace

std::optional<NvidiaRequirement> nvidia_require(std::string_view value) {
  NvidiaRequirement out;
  for (const auto& term : text::split(std::string(value.substr(0, 16384)), ' ')) {
    if (term.empty()) continue;
    if (out.size() == k_max_terms) return std::nullopt;
    std::vector<NvidiaRequireConstraint> all;
    for (const auto& c : text::split(term, ',')) {
      if (c.empty()) continue;
      auto r = constraint_of(c);
      if (!r || all.size() == k_max_constraints) return std::nullopt;
      all.push_back(std::move(*r));
    }
    if (!all.empty()) out.push_back(std::move(all));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

} // namespace gpudoctor::parse
