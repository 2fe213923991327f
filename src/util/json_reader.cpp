#include "util/json_reader.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace dom = simdjson::dom;

static_assert(sizeof(dom::element) == sizeof(JsonValue::Raw) && std::is_trivially_copyable_v<dom::element>,
              "JsonValue keeps simdjson's element as bytes: its size changed");

namespace {

// The same bound as util/json's parse_json: no reader of a report needs more, and it caps simdjson's stack.
constexpr std::size_t k_max_depth = 256;

} // namespace

struct JsonValueAccess {
  static JsonValue wrap(const dom::element& e) {
    JsonValue v;
    v.m_raw = std::bit_cast<JsonValue::Raw>(e);
    v.m_present = true;
    return v;
  }
  static dom::element element(const JsonValue& v) { return std::bit_cast<dom::element>(v.m_raw); }
};

JsonValue::Kind JsonValue::kind() const {
  if (!m_present) return Kind::missing;
  switch (JsonValueAccess::element(*this).type()) {
  case dom::element_type::ARRAY:
    return Kind::array;
  case dom::element_type::OBJECT:
    return Kind::object;
  case dom::element_type::STRING:
    return Kind::string;
  case dom::element_type::BOOL:
    return Kind::boolean;
  case dom::element_type::NULL_VALUE:
    return Kind::null;
  default:
    return Kind::number;
  }
}

JsonValue JsonValue::operator[](std::string_view key) const {
  dom::object obj;
  if (!m_present || JsonValueAccess::element(*this).get_object().get(obj)) return {};
  dom::element member;
  if (obj.at_key(key).get(member)) return {};
  return JsonValueAccess::wrap(member);
}

std::optional<std::string_view> JsonValue::string() const {
  std::string_view s;
  if (!m_present || JsonValueAccess::element(*this).get_string().get(s)) return std::nullopt;
  return s;
}

std::optional<long long> JsonValue::integer() const {
  std::int64_t i = 0;
  if (!m_present || JsonValueAccess::element(*this).get_int64().get(i)) return std::nullopt;
  return i;
}

std::optional<double> JsonValue::number() const {
  double d = 0;
  if (!m_present || JsonValueAccess::element(*this).get_double().get(d)) return std::nullopt;
  return d;
}

std::optional<bool> JsonValue::boolean() const {
  bool b = false;
  if (!m_present || JsonValueAccess::element(*this).get_bool().get(b)) return std::nullopt;
  return b;
}

std::string JsonValue::text(std::string_view fallback) const {
  auto s = string();
  return std::string(s ? *s : fallback);
}

void JsonValue::each(const std::function<void(JsonValue)>& visit) const {
  dom::array arr;
  if (!m_present || JsonValueAccess::element(*this).get_array().get(arr)) return;
  for (dom::element e : arr)
    visit(JsonValueAccess::wrap(e));
}

void JsonValue::each_member(const std::function<void(std::string_view, JsonValue)>& visit) const {
  dom::object obj;
  if (!m_present || JsonValueAccess::element(*this).get_object().get(obj)) return;
  for (dom::key_value_pair member : obj)
    visit(member.key, JsonValueAccess::wrap(member.value));
}

struct JsonReader::Impl {
  explicit Impl(std::size_t max) : max_bytes(max), parser(max) {}
  std::size_t max_bytes;
  dom::parser parser;
  simdjson::padded_string buffer; // parse_file's bytes, padded as simdjson reads them
  bool allocated = false;

  std::expected<JsonValue, std::string> parse(const char* data, std::size_t size, bool padded) {
    if (size > max_bytes) return std::unexpected(fmt::format("larger than {} bytes", max_bytes));
    if (!allocated) {
      if (auto err = parser.allocate(std::max<std::size_t>(size, 64 * 1024), k_max_depth))
        return std::unexpected(simdjson::error_message(err));
      allocated = true;
    }
    dom::element root;
    if (auto err = parser.parse(data, size, !padded).get(root)) {
      if (err == simdjson::DEPTH_ERROR)
        return std::unexpected(fmt::format("JSON nested deeper than {} levels", k_max_depth));
      return std::unexpected(simdjson::error_message(err));
    }
    return JsonValueAccess::wrap(root);
  }
};

JsonReader::JsonReader(std::size_t max_bytes) : m_impl(std::make_unique<Impl>(max_bytes)) {}
JsonReader::~JsonReader() = default;
JsonReader::JsonReader(JsonReader&&) noexcept = default;
JsonReader& JsonReader::operator=(JsonReader&&) noexcept = default;

std::expected<JsonValue, std::string> JsonReader::parse(std::string_view text) {
  return m_impl->parse(text.data(), text.size(), false);
}

std::expected<JsonValue, std::string> JsonReader::parse_file(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::unexpected(std::strerror(errno));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::unexpected(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return std::unexpected("not a regular file");
  auto size = static_cast<std::size_t>(st.st_size);
  if (size > m_impl->max_bytes)
    return std::unexpected(fmt::format("larger than {} bytes", m_impl->max_bytes));
  if (m_impl->buffer.size() < size || m_impl->buffer.size() > 4 * size + (1 << 20))
    m_impl->buffer = simdjson::padded_string(size);
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, m_impl->buffer.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::unexpected(std::strerror(errno));
    if (n == 0) break; // shrank while read: parse what is there
    got += static_cast<std::size_t>(n);
  }
  // The buffer holds at least SIMDJSON_PADDING bytes past `got`, as simdjson needs to read in place.
  return m_impl->parse(m_impl->buffer.data(), got, true);
}

} // namespace gpudoctor
