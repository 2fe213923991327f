// DT_NEEDED of an ELF shared library, read from the ELF header, the program headers, PT_DYNAMIC and the
// dynamic string table (System V gABI, "Object Files" and "Dynamic Section"). Every offset and size from the
// file is checked before use; nothing is trusted to be aligned, in range or consistent.
#include "parse/parsers_layer.hpp"

#include <algorithm>

namespace gpudoctor::parse {

namespace {

constexpr std::uint32_t k_pt_load = 1, k_pt_dynamic = 2;
constexpr std::int64_t k_dt_null = 0, k_dt_needed = 1, k_dt_strtab = 5, k_dt_strsz = 10, k_dt_soname = 14;
constexpr std::size_t k_max_dyn_entries = 4096, k_max_names = 512, k_max_phdrs = 256;

// Reads little- or big-endian unsigned integers from bytes that were read from the file.
struct Bytes {
  std::string data;
  bool big_endian = false;
  bool has(std::size_t at, std::size_t n) const { return at <= data.size() && n <= data.size() - at; }
  std::uint64_t u(std::size_t at, std::size_t n) const {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      auto byte = static_cast<unsigned char>(data[at + (big_endian ? i : n - 1 - i)]);
      v = (v << 8) | byte;
    }
    return v;
  }
};

struct Layout {
  bool is64 = false;
  std::size_t word() const { return is64 ? 8 : 4; }
};

struct Segment {
  std::uint32_t type = 0;
  std::uint64_t offset = 0, vaddr = 0, filesz = 0;
};

std::optional<Bytes> read_exact(const ElfReadAt& read, std::uint64_t offset, std::uint64_t length, bool big) {
  if (length > k_elf_max_read) return std::nullopt;
  auto got = read(offset, static_cast<std::size_t>(length));
  if (!got || got->size() < length) return std::nullopt;
  got->resize(static_cast<std::size_t>(length));
  return Bytes{std::move(*got), big};
}

std::optional<std::vector<Segment>> program_headers(const ElfReadAt& read, const Bytes& h, const Layout& l) {
  std::uint64_t phoff = l.is64 ? h.u(32, 8) : h.u(28, 4);
  std::uint64_t phentsize = l.is64 ? h.u(54, 2) : h.u(42, 2);
  std::uint64_t phnum = l.is64 ? h.u(56, 2) : h.u(44, 2);
  std::size_t need = l.is64 ? 56 : 32;
  if (phnum == 0 || phnum > k_max_phdrs || phentsize < need) return std::nullopt;
  auto table = read_exact(read, phoff, phnum * phentsize, h.big_endian);
  if (!table) return std::nullopt;
  std::vector<Segment> out;
  for (std::uint64_t i = 0; i < phnum; ++i) {
    std::size_t at = static_cast<std::size_t>(i * phentsize);
    Segment s;
    s.type = static_cast<std::uint32_t>(table->u(at, 4));
    if (l.is64) {
      s.offset = table->u(at + 8, 8);
      s.vaddr = table->u(at + 16, 8);
      s.filesz = table->u(at + 32, 8);
    } else {
      s.offset = table->u(at + 4, 4);
      s.vaddr = table->u(at + 8, 4);
      s.filesz = table->u(at + 16, 4);
    }
    out.push_back(s);
  }
  return out;
}

// The file offset of a virtual address, through the PT_LOAD segment that holds it.
std::optional<std::uint64_t> file_offset(const std::vector<Segment>& segments, std::uint64_t vaddr) {
  for (const auto& s : segments)
    if (s.type == k_pt_load && vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) {
      std::uint64_t delta = vaddr - s.vaddr;
      if (s.offset > UINT64_MAX - delta) return std::nullopt;
      return s.offset + delta;
    }
  return std::nullopt;
}

} // namespace

std::optional<ElfNeeded> elf_needed(const ElfReadAt& read) {
  auto ident = read(0, 64);
  if (!ident || ident->size() < 52 ||
      ident->compare(0, 4,
                     "\x7f"
                     "ELF") != 0)
    return std::nullopt;
  unsigned char cls = static_cast<unsigned char>((*ident)[4]),
                order = static_cast<unsigned char>((*ident)[5]);
  if ((cls != 1 && cls != 2) || (order != 1 && order != 2)) return std::nullopt;
  Layout l{cls == 2};
  Bytes h{*ident, order == 2};
  if (l.is64 && !h.has(0, 64)) return std::nullopt;
  auto segments = program_headers(read, h, l);
  if (!segments) return std::nullopt;
  auto dyn = std::find_if(segments->begin(), segments->end(),
                          [](const Segment& s) { return s.type == k_pt_dynamic; });
  if (dyn == segments->end()) return std::nullopt;
  std::size_t entry = 2 * l.word();
  std::uint64_t entries = std::min<std::uint64_t>(dyn->filesz / entry, k_max_dyn_entries);
  auto table = read_exact(read, dyn->offset, entries * entry, h.big_endian);
  if (!table) return std::nullopt;

  std::vector<std::uint64_t> needed_at;
  std::optional<std::uint64_t> soname_at, strtab, strsz;
  for (std::uint64_t i = 0; i < entries; ++i) {
    std::size_t at = static_cast<std::size_t>(i * entry);
    auto tag = static_cast<std::int64_t>(table->u(at, l.word()));
    std::uint64_t value = table->u(at + l.word(), l.word());
    if (tag == k_dt_null) break;
    if (tag == k_dt_needed && needed_at.size() < k_max_names) needed_at.push_back(value);
    if (tag == k_dt_soname) soname_at = value;
    if (tag == k_dt_strtab) strtab = value;
    if (tag == k_dt_strsz) strsz = value;
  }
  ElfNeeded out;
  out.bits = l.is64 ? 64 : 32;
  if (needed_at.empty() && !soname_at) return out;
  if (!strtab || !strsz || *strsz == 0) return std::nullopt;
  auto str_offset = file_offset(*segments, *strtab);
  if (!str_offset) return std::nullopt;
  auto strings = read_exact(read, *str_offset, *strsz, h.big_endian);
  if (!strings) return std::nullopt;
  auto name_at = [&](std::uint64_t off) -> std::optional<std::string> {
    if (off >= strings->data.size()) return std::nullopt;
    auto end = strings->data.find('\0', static_cast<std::size_t>(off));
    if (end == std::string::npos) return std::nullopt;
    return strings->data.substr(static_cast<std::size_t>(off), end - static_cast<std::size_t>(off));
  };
  for (auto off : needed_at) {
    auto name = name_at(off);
    if (!name) return std::nullopt;
    out.needed.push_back(std::move(*name));
  }
  if (soname_at) {
    auto name = name_at(*soname_at);
    if (!name) return std::nullopt;
    out.soname = std::move(*name);
  }
  return out;
}

std::optional<ElfNeeded> elf_needed_bytes(std::string_view bytes) {
  return elf_needed([bytes](std::uint64_t offset, std::size_t length) -> std::optional<std::string> {
    if (offset > bytes.size()) return std::string();
    return std::string(bytes.substr(static_cast<std::size_t>(offset), length));
  });
}

} // namespace gpudoctor::parse
