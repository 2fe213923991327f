#include "util/json_reader.hpp"

#include "util/utf8.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {

// The table a document is read into (named, not anonymous: JsonReader::Impl holds one).
namespace json_table {

using ValueKind = JsonValue::Kind;

// One value of a document. An array's elements follow its row, an object's members follow as key and value
// rows; `end` is the row after a value's last element, so a reader steps over a whole value at once.
// 16 bytes a value: `payload` is a string's offset in Document::strings (high half) and length, an integral
// number's long long, or another number's double, as bits.
struct Row {
  ValueKind kind = ValueKind::null;
  bool integral = false; // a number without fraction or exponent that fits a long long
  bool boolean = false;
  std::uint32_t end = 0;
  std::uint64_t payload = 0;

  std::uint32_t offset() const { return static_cast<std::uint32_t>(payload >> 32); }
  std::uint32_t length() const { return static_cast<std::uint32_t>(payload); }
  double number() const {
    return integral ? static_cast<double>(std::bit_cast<long long>(payload)) : std::bit_cast<double>(payload);
  }
};
static_assert(sizeof(Row) == 16);

struct Document {
  std::vector<Row> rows;
  std::string strings; // every string's bytes, escapes undone
};

} // namespace json_table

namespace {

using namespace json_table;

// The same bound as util/json's parse_json: no reader of a report needs more, and it bounds the recursion.
constexpr std::size_t k_max_depth = 256;

bool json_digit(char c) {
  return c >= '0' && c <= '9';
}

// The end of the run of bytes from `p` that a string holds as they are (no quote, backslash or control
// character), eight bytes at a time while it can.
const char* plain_run_end(const char* p, const char* end) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  while (end - p >= 8) {
    std::uint64_t block = 0;
    std::memcpy(&block, p, 8);
    std::uint64_t special = has_zero(block ^ (ones * '"')) | has_zero(block ^ (ones * '\\')) |
                            ((block - ones * 0x20) & ~block & highs);
    if (special) break;
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
    ++p;
  return p;
}

// Whether a number from_chars found out of range is too large (else it is too small: it reads as zero). The
// decimal exponent of its first significant digit decides; the grammar was checked before.
bool too_large(std::string_view number) {
  std::size_t i = number.starts_with('-') ? 1 : 0;
  long long point_shift = 0; // the decimal exponent of the first significant digit, before `e`
  bool found = false, in_fraction = false;
  long long integer_digits = 0, fraction_zeros = 0;
  for (; i < number.size() && number[i] != 'e' && number[i] != 'E'; ++i) {
    char c = number[i];
    if (c == '.') {
      in_fraction = true;
      continue;
    }
    if (found) {
      if (!in_fraction) ++integer_digits;
      continue;
    }
    if (c != '0') {
      found = true;
      if (!in_fraction)
        integer_digits = 1;
      else
        point_shift = -(fraction_zeros + 1);
    } else if (in_fraction) {
      ++fraction_zeros;
    }
  }
  if (!found) return false;
  if (integer_digits > 0) point_shift = integer_digits - 1;
  long long exponent = 0;
  if (i < number.size()) {
    ++i;
    bool negative = i < number.size() && number[i] == '-';
    if (i < number.size() && (number[i] == '-' || number[i] == '+')) ++i;
    for (; i < number.size(); ++i)
      exponent = std::min<long long>(exponent * 10 + (number[i] - '0'), 1'000'000'000);
    if (negative) exponent = -exponent;
  }
  return point_shift + exponent >= 0;
}

class Parser {
public:
  Parser(std::string_view text, Document& document)
      : m_begin(text.data()), m_p(text.data()), m_end(text.data() + text.size()), m_doc(document) {}

  // nullopt when the whole text is one JSON value with only whitespace around it.
  std::optional<std::string> run() {
    if (!value()) return m_error;
    skip_whitespace();
    if (m_p != m_end) return error_at("content after the document's value");
    return std::nullopt;
  }

private:
  const char* m_begin;
  const char* m_p;
  const char* m_end;
  Document& m_doc;
  std::size_t m_depth = 0;
  std::string m_error;

  std::string error_at(std::string_view what) const {
    return fmt::format("{} at byte {}", what, m_p - m_begin);
  }
  bool fail(std::string_view what) {
    m_error = error_at(what);
    return false;
  }

  void skip_whitespace() {
    while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
      ++m_p;
  }

  std::uint32_t push(ValueKind kind) {
    auto index = static_cast<std::uint32_t>(m_doc.rows.size());
    m_doc.rows.push_back(Row{.kind = kind, .end = index + 1});
    return index;
  }
  void close(std::uint32_t row) { m_doc.rows[row].end = static_cast<std::uint32_t>(m_doc.rows.size()); }

  bool value() {
    skip_whitespace();
    if (m_p == m_end) return fail("the document ends where a value was expected");
    switch (*m_p) {
    case '{':
      return container(ValueKind::object, '}');
    case '[':
      return container(ValueKind::array, ']');
    case '"':
      return string(push(ValueKind::string));
    case 't':
      return literal("true", ValueKind::boolean, true);
    case 'f':
      return literal("false", ValueKind::boolean, false);
    case 'n':
      return literal("null", ValueKind::null, false);
    default:
      if (*m_p == '-' || json_digit(*m_p)) return number();
      return fail("not a JSON value");
    }
  }

  bool literal(std::string_view word, ValueKind kind, bool truth) {
    if (static_cast<std::size_t>(m_end - m_p) < word.size() || std::string_view(m_p, word.size()) != word)
      return fail("not a JSON value");
    m_p += word.size();
    m_doc.rows[push(kind)].boolean = truth;
    return true;
  }

  bool container(ValueKind kind, char closing) {
    if (++m_depth > k_max_depth) return fail(fmt::format("JSON nested deeper than {} levels", k_max_depth));
    auto row = push(kind);
    ++m_p;
    skip_whitespace();
    if (m_p < m_end && *m_p == closing) {
      ++m_p;
    } else {
      for (;;) {
        if (kind == ValueKind::object && !member_key()) return false;
        if (!value()) return false;
        skip_whitespace();
        if (m_p == m_end) return fail("the document ends inside an array or object");
        char c = *m_p++;
        if (c == closing) break;
        if (c != ',') {
          --m_p;
          return fail(kind == ValueKind::object ? "expected ',' or '}'" : "expected ',' or ']'");
        }
      }
    }
    close(row);
    --m_depth;
    return true;
  }

  bool member_key() {
    skip_whitespace();
    if (m_p == m_end || *m_p != '"') return fail("expected a member's name");
    if (!string(push(ValueKind::string))) return false;
    skip_whitespace();
    if (m_p == m_end || *m_p != ':') return fail("expected ':' after a member's name");
    ++m_p;
    return true;
  }

  bool hex4(std::uint32_t& out) {
    if (m_end - m_p < 4) return fail("a \\u escape with fewer than 4 hex digits");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *m_p++;
      std::uint32_t digit = 0;
      if (c >= '0' && c <= '9')
        digit = static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        digit = static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        digit = static_cast<std::uint32_t>(c - 'A' + 10);
      else
        return fail("a \\u escape with a character that is not a hex digit");
      out = out * 16 + digit;
    }
    return true;
  }

  bool escape(std::string& out) {
    if (m_p == m_end) return fail("the document ends inside a string");
    char c = *m_p++;
    switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      --m_p;
      return fail("an unknown escape in a string");
    }
    std::uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("a lone low surrogate in a \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      std::uint32_t low = 0;
      if (m_end - m_p < 2 || m_p[0] != '\\' || m_p[1] != 'u')
        return fail("a lone high surrogate in a \\u escape");
      m_p += 2;
      if (!hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return fail("a high surrogate without its low surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    utf8::append(out, cp);
    return true;
  }

  // The string at m_p (its opening quote) into `row`.
  bool string(std::uint32_t row) {
    ++m_p;
    std::string& out = m_doc.strings;
    auto offset = out.size();
    for (;;) {
      const char* run = m_p;
      m_p = plain_run_end(m_p, m_end);
      out.append(run, m_p);
      if (m_p == m_end) return fail("the document ends inside a string");
      char c = *m_p++;
      if (c == '"') break;
      if (c != '\\') {
        --m_p;
        return fail("a control character inside a string");
      }
      if (!escape(out)) return false;
    }
    m_doc.rows[row].payload = (static_cast<std::uint64_t>(offset) << 32) | (out.size() - offset);
    return true;
  }

  bool digits() {
    if (m_p == m_end || !json_digit(*m_p)) return false;
    while (m_p < m_end && json_digit(*m_p))
      ++m_p;
    return true;
  }

  bool number() {
    const char* start = m_p;
    if (*m_p == '-') ++m_p;
    if (m_p < m_end && *m_p == '0') {
      ++m_p;
    } else if (!digits()) {
      return fail("a number without digits");
    }
    bool integral = true;
    if (m_p < m_end && *m_p == '.') {
      ++m_p;
      integral = false;
      if (!digits()) return fail("a number without digits after its point");
    }
    if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
      ++m_p;
      integral = false;
      if (m_p < m_end && (*m_p == '+' || *m_p == '-')) ++m_p;
      if (!digits()) return fail("a number without digits in its exponent");
    }
    Row& row = m_doc.rows[push(ValueKind::number)];
    long long integer = 0;
    if (integral && std::from_chars(start, m_p, integer).ec == std::errc{}) {
      row.integral = true;
      row.payload = std::bit_cast<std::uint64_t>(integer);
      return true;
    }
    double number = 0;
    auto [end, ec] = std::from_chars(start, m_p, number);
    if (ec == std::errc::result_out_of_range) {
      std::string_view text(start, static_cast<std::size_t>(m_p - start));
      if (too_large(text)) return fail("a number too large for a double");
      number = *start == '-' ? -0.0 : 0.0;
    } else if (ec != std::errc{} || end != m_p) {
      return fail("a number that does not read"); // the grammar above makes this unreachable
    }
    row.payload = std::bit_cast<std::uint64_t>(number);
    return true;
  }
};

} // namespace

struct JsonValueAccess {
  static JsonValue wrap(const Document& document, std::uint32_t row) {
    JsonValue v;
    v.m_document = &document;
    v.m_row = row;
    return v;
  }
  static const Document& document(const JsonValue& v) { return *static_cast<const Document*>(v.m_document); }
  static const Row* row(const JsonValue& v) { return v.m_document ? &document(v).rows[v.m_row] : nullptr; }
};

JsonValue::Kind JsonValue::kind() const {
  const Row* row = JsonValueAccess::row(*this);
  return row ? row->kind : ValueKind::missing;
}

JsonValue JsonValue::operator[](std::string_view key) const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::object) return {};
  const Document& doc = JsonValueAccess::document(*this);
  for (std::uint32_t i = m_row + 1; i < row->end; i = doc.rows[i + 1].end) {
    const Row& name = doc.rows[i];
    if (std::string_view(doc.strings).substr(name.offset(), name.length()) == key)
      return JsonValueAccess::wrap(doc, i + 1);
  }
  return {};
}

std::optional<std::string_view> JsonValue::string() const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::string) return std::nullopt;
  return std::string_view(JsonValueAccess::document(*this).strings).substr(row->offset(), row->length());
}

std::optional<long long> JsonValue::integer() const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::number || !row->integral) return std::nullopt;
  return std::bit_cast<long long>(row->payload);
}

std::optional<double> JsonValue::number() const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::number) return std::nullopt;
  return row->number();
}

std::optional<bool> JsonValue::boolean() const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::boolean) return std::nullopt;
  return row->boolean;
}

std::string JsonValue::text(std::string_view fallback) const {
  auto s = string();
  return std::string(s ? *s : fallback);
}

void JsonValue::each(const std::function<void(JsonValue)>& visit) const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::array) return;
  const Document& doc = JsonValueAccess::document(*this);
  for (std::uint32_t i = m_row + 1; i < row->end; i = doc.rows[i].end)
    visit(JsonValueAccess::wrap(doc, i));
}

void JsonValue::each_member(const std::function<void(std::string_view, JsonValue)>& visit) const {
  const Row* row = JsonValueAccess::row(*this);
  if (!row || row->kind != ValueKind::object) return;
  const Document& doc = JsonValueAccess::document(*this);
  for (std::uint32_t i = m_row + 1; i < row->end; i = doc.rows[i + 1].end) {
    const Row& name = doc.rows[i];
    visit(std::string_view(doc.strings).substr(name.offset(), name.length()),
          JsonValueAccess::wrap(doc, i + 1));
  }
}

struct JsonReader::Impl {
  // Row indices and string offsets are 32-bit: a document is at most 4 GiB less one byte.
  explicit Impl(std::size_t max)
      : max_bytes(std::min<std::size_t>(max, std::numeric_limits<std::uint32_t>::max() - 1)) {}
  std::size_t max_bytes;
  Document document;
  std::string buffer; // parse_file's bytes

  std::expected<JsonValue, std::string> parse(std::string_view text) {
    if (text.size() > max_bytes) return std::unexpected(fmt::format("larger than {} bytes", max_bytes));
    if (!utf8::valid(text)) return std::unexpected("not valid UTF-8");
    // A document of n bytes has at most n/2 + 1 values and n bytes of strings; a large document's tables are
    // let go before a small one is read, so what the reader holds follows the document it read last.
    if (document.rows.capacity() * sizeof(Row) > 8 * text.size() + (1 << 20)) document.rows = {};
    if (document.strings.capacity() > 4 * text.size() + (1 << 20)) document.strings = std::string();
    document.rows.clear();
    document.strings.clear();
    document.strings.reserve(text.size());
    Parser parser(text, document);
    if (auto error = parser.run()) {
      document.rows.clear();
      return std::unexpected(std::move(*error));
    }
    return JsonValueAccess::wrap(document, 0);
  }
};

JsonReader::JsonReader(std::size_t max_bytes) : m_impl(std::make_unique<Impl>(max_bytes)) {}
JsonReader::~JsonReader() = default;
JsonReader::JsonReader(JsonReader&&) noexcept = default;
JsonReader& JsonReader::operator=(JsonReader&&) noexcept = default;

std::expected<JsonValue, std::string> JsonReader::parse(std::string_view text) {
  return m_impl->parse(text);
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
  std::string& buffer = m_impl->buffer;
  if (buffer.capacity() > 4 * size + (1 << 20)) buffer = std::string(); // a large file's buffer is let go
  buffer.resize(size);
  std::size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, buffer.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::unexpected(std::strerror(errno));
    if (n == 0) break; // shrank while read: parse what is there
    got += static_cast<std::size_t>(n);
  }
  return m_impl->parse(std::string_view(buffer).substr(0, got));
}

} // namespace gpudoctor
