#include "util/wrap.hpp"

#include <algorithm>
#include <utility>

namespace gpudoctor {

namespace {

// Marks after which a line's text starts: evidence, a fix, a list item.
constexpr std::string_view k_marks[] = {"· ", "→ ", "- ", "* "};

// The code point of the UTF-8 sequence at `at` and its length in bytes; a byte that starts no valid sequence
// is one column of its own (what escape:: lets through is valid UTF-8; this only keeps the count bounded).
std::pair<char32_t, std::size_t> next_code_point(std::string_view s, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(at);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xe  ? 3
                       : (lead >> 3) == 0x1e ? 4
                                             : 0;
  if (length == 0 || at + length > s.size()) return {U'?', 1};
  char32_t cp = length == 1 ? lead : lead & (0x7f >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xc0) != 0x80) return {U'?', 1};
    cp = (cp << 6) | (byte(at + k) & 0x3f);
  }
  return {cp, length};
}

// Columns a code point takes on a terminal. Wide (2): the East Asian Wide and Fullwidth blocks of Unicode
// Standard Annex #11 (EastAsianWidth.txt, W and F) and the emoji pictographs that are W since Unicode 9,
// taken as whole blocks. None (0): combining diacritical marks, zero-width spaces and joiners, variation
// selectors. Everything else: one.
std::size_t columns_of(char32_t cp) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range k_none[] = {
      {0x0300, 0x036f}, {0x200b, 0x200f}, {0x20d0, 0x20ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}};
  static constexpr Range k_wide[] = {
      {0x1100, 0x115f}, {0x2e80, 0x303e},   {0x3041, 0x33ff},   {0x3400, 0x4dbf},   {0x4e00, 0x9fff},
      {0xa000, 0xa4cf}, {0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe30, 0xfe4f},   {0xff00, 0xff60},
      {0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd}};
  if (cp < 0x300) return 1;
  for (const auto& r : k_none)
    if (cp >= r.first && cp <= r.last) return 0;
  for (const auto& r : k_wide)
    if (cp >= r.first && cp <= r.last) return 2;
  return 1;
}

// Where a CSI escape sequence that starts at `at` ends (`at` itself when none starts there): parameters and
// intermediates, then a final byte in 0x40-0x7e. Any other byte, a space among them, ends a malformed one
// where it stands, so that a line and its words, measured apart, agree.
std::size_t after_escape(std::string_view s, std::size_t at) {
  if (at + 1 >= s.size() || s[at] != '\033' || s[at + 1] != '[') return at;
  std::size_t i = at + 2;
  while (i < s.size() && s[i] >= 0x21 && s[i] <= 0x3f)
    ++i;
  if (i < s.size() && s[i] >= 0x40 && s[i] <= 0x7e) ++i;
  return i;
}

// The bytes of a line's indent: its leading spaces and the escape sequences among them (a dimmed evidence
// line starts with its colour).
std::size_t indent_end(std::string_view line) {
  std::size_t at = 0;
  while (at < line.size()) {
    if (line[at] == ' ') {
      ++at;
    } else if (std::size_t next = after_escape(line, at); next != at) {
      at = next;
    } else {
      break;
    }
  }
  return at;
}

// Where a line's continuation starts: under the text after a mark, or under the column after the first double
// space when it comes early (a table's value, a result's title), or under the line's own indent.
std::size_t hanging_indent(std::string_view line, std::size_t width) {
  std::size_t lead_end = indent_end(line);
  std::size_t lead = display_width(line.substr(0, lead_end));
  std::string_view rest = line.substr(lead_end);
  std::size_t hang = lead;
  bool marked = false;
  for (auto mark : k_marks)
    if (rest.starts_with(mark)) {
      hang = lead + display_width(mark);
      marked = true;
      break;
    }
  if (!marked)
    if (auto gap = rest.find("  "); gap != std::string_view::npos) {
      std::size_t after = rest.find_first_not_of(' ', gap);
      if (after != std::string_view::npos) {
        std::size_t column = lead + display_width(rest.substr(0, after));
        if (column <= std::min<std::size_t>(width / 2, 40)) hang = column;
      }
    }
  // A continuation needs room for some words.
  return hang + 20 > width ? std::min(lead, width / 2) : hang;
}

void wrap_line(std::string_view line, std::size_t width, std::size_t hang, std::string& out) {
  if (display_width(line) <= width) {
    out += line;
    return;
  }
  std::size_t lead_end = indent_end(line);
  out += line.substr(0, lead_end);
  std::size_t column = display_width(line.substr(0, lead_end));
  bool word_on_line = false;
  std::size_t at = lead_end;
  while (at < line.size()) {
    std::size_t word_start = std::min(line.find_first_not_of(' ', at), line.size());
    std::size_t spaces = word_start - at;
    if (word_start == line.size()) break; // trailing spaces go
    std::size_t word_end = std::min(line.find(' ', word_start), line.size());
    std::string_view word = line.substr(word_start, word_end - word_start);
    std::size_t word_width = display_width(word);
    if (word_on_line && column + spaces + word_width > width) {
      out += '\n';
      out.append(hang, ' ');
      column = hang;
      spaces = 0;
    }
    out.append(spaces, ' ');
    out += word;
    column += spaces + word_width;
    word_on_line = true;
    at = word_end;
  }
}

} // namespace

std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (std::size_t next = after_escape(s, i); next != i) {
      i = next; // CSI: no columns
      continue;
    }
    auto [cp, length] = next_code_point(s, i);
    width += columns_of(cp);
    i += length;
  }
  return width;
}

std::string wrap_to_width(std::string_view text, std::size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    wrap_line(line, width, hanging_indent(line, width), out);
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

std::string wrap_line_with_hang(std::string_view line, std::size_t width, std::size_t hang) {
  if (width == 0) return std::string(line);
  std::string out;
  wrap_line(line, width, std::min(hang, width / 2), out);
  return out;
}

std::string cut_to_width(std::string_view text, std::size_t width) {
  if (width == 0 || display_width(text) <= width) return std::string(text);
  std::string out;
  std::size_t columns = 0;
  for (std::size_t at = 0; at < text.size();) {
    auto [cp, length] = next_code_point(text, at);
    columns += columns_of(cp);
    if (columns > width - 1) break; // room for the ellipsis
    out.append(text.substr(at, length));
    at += length;
  }
  return out + "…";
}

} // namespace gpudoctor
