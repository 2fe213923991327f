// The fast reader of `gpudoctor fleet`, which reads thousands of reports: one pass over the bytes into a
// flat table of values (about 0.1 ms for a 56 KB report, against about 0.9 ms for util/json's nlohmann DOM).
// It is gpudoctor's own so that the binary links no JSON library whose soname differs between distributions
// (docs/fleet.md, "The JSON reader"). Nothing throws; a document is validated whole (UTF-8 included) before
// any value is read, and nesting deeper than 256 levels is refused, as util/json refuses it. util/json stays
// the reader and writer of everything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// A value inside the document a JsonReader parsed last; valid until that reader parses again. A key that
// is absent, or a lookup on something that is not an object, gives a `missing` value, so lookups chain.
class JsonValue {
public:
  enum class Kind : std::uint8_t { missing, null, boolean, number, string, array, object };

  JsonValue() = default;
  Kind kind() const;
  bool missing() const { return m_document == nullptr; }
  bool is_object() const { return kind() == Kind::object; }
  bool is_array() const { return kind() == Kind::array; }

  // The member `key` of an object (the first, if a key repeats).
  JsonValue operator[](std::string_view key) const;
  // Typed reads: nullopt when the value is of another kind.
  std::optional<std::string_view> string() const;
  std::optional<long long> integer() const;
  std::optional<double> number() const;
  std::optional<bool> boolean() const;
  // The string, or `fallback` when the value is not a string.
  std::string text(std::string_view fallback = {}) const;

  // Visits an array's elements / an object's members in document order (nothing for other kinds).
  void each(const std::function<void(JsonValue)>& visit) const;
  void each_member(const std::function<void(std::string_view, JsonValue)>& visit) const;

private:
  friend struct JsonValueAccess;
  // The document's table of values (json_reader.cpp) and this value's row in it; null when missing.
  const void* m_document = nullptr;
  std::uint32_t m_row = 0;
};

class JsonReader {
public:
  // Documents larger than `max_bytes` are refused before they are read.
  explicit JsonReader(std::size_t max_bytes = std::size_t{256} << 20);
  ~JsonReader();
  JsonReader(JsonReader&&) noexcept;
  JsonReader& operator=(JsonReader&&) noexcept;

  std::expected<JsonValue, std::string> parse(std::string_view text);
  // Reads and parses a regular file (not through a symlink: an untrusted bundle's links stay unfollowed).
  std::expected<JsonValue, std::string> parse_file(const std::filesystem::path& path);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace gpudoctor
