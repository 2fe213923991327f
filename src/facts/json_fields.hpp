// Internal to the facts' JSON writers (facts/*_json.cpp): how a value that is not there is written (null,
// never "" or 0: shared/spec/snapshot-v1.md), and a Fact with its source.
#pragma once

#include "facts/facts.hpp"
#include "util/json_value.hpp"

#include <optional>
#include <string>

namespace gpudoctor::facts_json {

template <class T> Json opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

inline Json text_or_null(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

template <class T> Json fact(const Fact<T>& f) {
  if (!f) return nullptr;
  return Json{{"value", *f}, {"source", f.source}};
}

} // namespace gpudoctor::facts_json
