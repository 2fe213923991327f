// A value with the place it was read from: what every fact of the collectors is.
#pragma once

#include <optional>
#include <string>

namespace gpudoctor {

// A value with its provenance: "file /proc/driver/nvidia/version:1", "cmd nvidia-smi-xml", "env CUDA_HOME".
template <class T> struct Fact {
  std::optional<T> value;
  std::string source;

  Fact() = default;
  Fact(T v, std::string src) : value(std::move(v)), source(std::move(src)) {}
  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
};

} // namespace gpudoctor
