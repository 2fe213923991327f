#include "util/gunzip_stream.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <zlib.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

constexpr std::size_t k_buffer_bytes = 64 * 1024;
constexpr std::size_t k_magic_bytes = 6; // the longest magic below

struct OtherFormat {
  std::string_view magic, name;
};
// Compressions libarchive could undo, some only through an external program: named, never undone.
constexpr std::array<OtherFormat, 8> k_other_formats{{
    {"\xFD\x37\x7A\x58\x5A\x00", "xz"},
    {"\x28\xB5\x2F\xFD", "zstd"},
    {"BZh", "bzip2"},
    {"\x04\x22\x4D\x18", "lz4"},
    {"LZIP", "lzip"},
    {"LRZI", "lrzip"},
    {"\x89\x4C\x5A\x4F", "lzop"},
    {"\x1F\x9D", "compress"},
}};

bool starts_with(std::string_view bytes, std::string_view magic) {
  return bytes.size() >= magic.size() && bytes.substr(0, magic.size()) == magic;
}

} // namespace

struct GunzipStream::State {
  enum class Mode { detect, plain, member, between, done };

  Fill fill;
  std::uint64_t max_output = 0, produced = 0;
  std::array<char, k_buffer_bytes> in{};
  std::size_t in_begin = 0, in_end = 0;
  bool in_eof = false;
  z_stream z{};
  bool z_ready = false;
  Mode mode = Mode::detect;

  std::string_view pending() const { return {in.data() + in_begin, in_end - in_begin}; }

  // Reads more raw bytes after the pending ones; false on a read error.
  bool refill(std::string& error) {
    if (in_eof) return true;
    if (in_begin > 0) {
      std::memmove(in.data(), in.data() + in_begin, in_end - in_begin);
      in_end -= in_begin;
      in_begin = 0;
    }
    long n = fill(in.data() + in_end, in.size() - in_end);
    if (n < 0) {
      error = fmt::format("cannot read the archive: {}", std::strerror(errno));
      return false;
    }
    if (n == 0) in_eof = true;
    in_end += static_cast<std::size_t>(n);
    return true;
  }

  // At least `want` pending bytes unless the input ends first; false on a read error.
  bool ensure(std::size_t want, std::string& error) {
    while (pending().size() < want && !in_eof)
      if (!refill(error)) return false;
    return true;
  }

  bool start_member(std::string& error) {
    int rc = z_ready ? inflateReset(&z) : inflateInit2(&z, 16 + MAX_WBITS); // 16: gzip framing only
    if (rc != Z_OK) {
      error = "cannot start the gzip decoder";
      return false;
    }
    z_ready = true;
    mode = Mode::member;
    return true;
  }

  // Chooses the mode from the first bytes.
  bool detect(std::string& error) {
    if (!ensure(k_magic_bytes, error)) return false;
    std::string_view head = pending();
    if (starts_with(head, "\x1F\x8B")) return start_member(error);
    for (const auto& other : k_other_formats)
      if (starts_with(head, other.magic)) {
        error = fmt::format("compressed with {}: only gzip (.tar.gz) archives are read", other.name);
        return false;
      }
    mode = Mode::plain;
    return true;
  }

  // After a member's end: another member, NUL padding to the end, or refused trailing data.
  bool next_member(std::string& error) {
    if (!ensure(2, error)) return false;
    std::string_view rest = pending();
    if (rest.empty()) {
      mode = Mode::done;
      return true;
    }
    if (starts_with(rest, "\x1F\x8B")) return start_member(error);
    while (true) { // only NULs may follow (padding to a block size)
      if (std::any_of(rest.begin(), rest.end(), [](char c) { return c != '\0'; })) {
        error = "damaged archive: data after the end of the gzip stream";
        return false;
      }
      in_begin = in_end;
      if (in_eof) break;
      if (!refill(error)) return false;
      rest = pending();
    }
    mode = Mode::done;
    return true;
  }

  // Some content into `out` (0 only at the end), or nullopt with `error`.
  std::optional<std::size_t> produce(char* out, std::size_t cap, std::string& error) {
    while (true) {
      switch (mode) {
      case Mode::detect:
        if (!detect(error)) return std::nullopt;
        continue;
      case Mode::between:
        if (!next_member(error)) return std::nullopt;
        continue;
      case Mode::done:
        return 0;
      case Mode::plain: {
        if (pending().empty() && !in_eof && !refill(error)) return std::nullopt;
        std::size_t n = std::min(cap, pending().size());
        std::memcpy(out, in.data() + in_begin, n);
        in_begin += n;
        if (n == 0) mode = Mode::done;
        return n;
      }
      case Mode::member: {
        if (pending().empty() && !in_eof && !refill(error)) return std::nullopt;
        z.next_in = reinterpret_cast<Bytef*>(in.data() + in_begin);
        z.avail_in = static_cast<uInt>(pending().size());
        z.next_out = reinterpret_cast<Bytef*>(out);
        z.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, k_buffer_bytes));
        uInt offered = z.avail_out;
        int rc = inflate(&z, Z_NO_FLUSH);
        in_begin = in_end - z.avail_in;
        std::size_t n = offered - z.avail_out;
        if (rc == Z_STREAM_END) { // zlib has checked the member's CRC-32 and length
          mode = Mode::between;
          if (n > 0) return n;
          continue;
        }
        if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR) {
          error = fmt::format("damaged archive: {}", z.msg ? z.msg : "gzip data that does not decode");
          return std::nullopt;
        }
        if (n > 0) return n;
        if (in_eof && pending().empty()) {
          error = "damaged archive: the gzip stream ends before its last member does (truncated)";
          return std::nullopt;
        }
        continue; // needs more input
      }
      }
    }
  }
};

GunzipStream::GunzipStream(Fill fill, std::uint64_t max_output) : m(std::make_unique<State>()) {
  m->fill = std::move(fill);
  m->max_output = max_output;
}

GunzipStream::~GunzipStream() {
  if (m->z_ready) inflateEnd(&m->z);
}

std::optional<std::size_t> GunzipStream::read(char* buf, std::size_t cap) {
  if (!m_error.empty()) return std::nullopt;
  if (cap == 0) return 0;
  auto n = m->produce(buf, cap, m_error);
  if (!n) return std::nullopt;
  m->produced += *n;
  if (m->produced > m->max_output) {
    m_error = fmt::format("unpacks to more than {} MiB: refused", m->max_output >> 20);
    return std::nullopt;
  }
  return n;
}

std::optional<std::string> GunzipStream::finish() {
  std::array<char, k_buffer_bytes> scratch;
  while (true) {
    auto n = read(scratch.data(), scratch.size());
    if (!n) return m_error;
    if (*n == 0) return std::nullopt;
  }
}

} // namespace gpudoctor
