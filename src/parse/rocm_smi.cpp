// rocm-smi: --json (objects "card0".. and "system"), --csv (one row per card), and the default / concise
// tables. Key names changed across releases ("GPU ID" -> "Device ID", "Card series" -> "Card Series"), so
// keys compare case-insensitively.
#include "parse/json_doc.hpp"
#include "parse/parsers.hpp"
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_cards = 4096;

bool is_hex_digit(char c) {
  return detail::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return detail::is_digit(c); });
}

std::optional<int> small_int(std::string_view s) {
  auto v = text::to_int(detail::trim_view(s));
  if (!v || *v < -1 || *v > 1'000'000) return std::nullopt;
  return static_cast<int>(*v);
}

// One "key": "value" of a card (or of "system").
void card_value(RocmSmiCard& c, std::string& driver, std::string_view raw_key, std::string_view raw_value) {
  std::string key = text::lower(detail::trim_view(raw_key));
  std::string_view value = detail::trim_view(raw_value);
  if (value == "N/A" || value.empty()) return;
  std::string v(value);
  if (key == "device id" || key == "gpu id")
    c.device_id = v;
  else if (key == "device rev")
    c.device_rev = v;
  else if (key == "card series")
    c.card_series = v;
  else if (key == "card model")
    c.card_model = v;
  else if (key == "card vendor")
    c.card_vendor = v;
  else if (key == "card sku")
    c.card_sku = v;
  else if (key == "subsystem id")
    c.subsystem_id = v;
  else if (key == "device name")
    c.device_name = v;
  else if (key == "gfx version") {
    c.gfx_version = v;
    c.gfx_target = rocm_smi_gfx_target(v);
  } else if (key == "node id")
    c.node_id = small_int(v);
  else if (key == "pci bus")
    c.bdf = bdf_from_nvidia_bus_id(v);
  else if (key == "unique id")
    c.unique_id = v;
  else if (key == "vbios version")
    c.vbios_version = v;
  else if (key == "serial number")
    c.serial = v;
  else if (key == "vram total memory (b)")
    c.vram_total_bytes = text::to_int(v);
  else if (key == "vram total used memory (b)")
    c.vram_used_bytes = text::to_int(v);
  else if (key == "(topology) numa node")
    c.numa_node = small_int(v);
  else if (key == "driver version")
    driver = v;
}

// "card12" -> 12; anything else sorts after the cards.
long long card_index(const std::string& card) {
  if (card.size() > 4 && card.starts_with("card") && all_digits(std::string_view(card).substr(4)) &&
      card.size() < 14)
    return *text::to_int(std::string_view(card).substr(4));
  return -1;
}

void sort_cards(std::vector<RocmSmiCard>& cards) {
  std::stable_sort(cards.begin(), cards.end(), [](const RocmSmiCard& a, const RocmSmiCard& b) {
    return card_index(a.card) < card_index(b.card);
  });
}

// One CSV record (rocm-smi quotes nothing, but a quoted cell is read as CSV says).
std::vector<std::string> csv_cells(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      if (out.size() >= 4096) break;
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

} // namespace

std::string rocm_smi_gfx_target(std::string_view gfx) {
  gfx = detail::trim_view(gfx);
  gfx = gfx.substr(0, gfx.find(':'));
  if (gfx.size() < 6 || gfx.size() > 8 || text::lower(gfx.substr(0, 3)) != "gfx") return {};
  std::string digits = text::lower(gfx.substr(3));
  if (!std::all_of(digits.begin(), digits.end(), is_hex_digit)) return {};
  if (!all_digits(digits)) return "gfx" + digits; // already LLVM's: gfx90a, gfx90c
  // Majors are 6..12: one digit, or two when the first is '1'. Then one minor digit; the rest is the
  // stepping, which LLVM writes as one hex digit.
  std::size_t major_len = digits[0] == '1' ? 2 : 1;
  if (digits.size() < major_len + 2) return {};
  std::string_view stepping = std::string_view(digits).substr(major_len + 1);
  if (stepping.size() == 1) return "gfx" + digits;
  auto s = text::to_int(stepping);
  if (!s || *s > 15) return {};
  return "gfx" + digits.substr(0, major_len + 1) + "0123456789abcdef"[*s];
}

std::optional<long long> gfx_target_version_of(std::string_view target) {
  std::string t = rocm_smi_gfx_target(target);
  if (t.size() < 6) return std::nullopt;
  std::string_view d = std::string_view(t).substr(3);
  char step = d.back();
  long long stepping = detail::is_digit(step) ? step - '0' : step - 'a' + 10;
  if (!detail::is_digit(d[d.size() - 2])) return std::nullopt;
  long long minor = d[d.size() - 2] - '0';
  auto major = text::to_int(d.substr(0, d.size() - 2));
  if (!major) return std::nullopt;
  return *major * 10000 + minor * 100 + stepping;
}

std::optional<RocmSmiReport> rocm_smi_json(std::string_view text) {
  auto j = detail::json_document(text);
  if (!j || !j->is_object()) return std::nullopt;
  RocmSmiReport out;
  bool any = false;
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (!it.value().is_object()) continue;
    const std::string& name = it.key();
    bool system = name == "system";
    if (!system && card_index(name) < 0) continue;
    any = true;
    RocmSmiCard card{.card = name};
    for (auto f = it.value().begin(); f != it.value().end(); ++f)
      if (f.value().is_string()) card_value(card, out.driver_version, f.key(), f.value().get<std::string>());
    if (!system && out.cards.size() < k_max_cards) out.cards.push_back(std::move(card));
  }
  if (!any) return std::nullopt;
  sort_cards(out.cards);
  return out;
}

std::optional<RocmSmiReport> rocm_smi_csv(std::string_view text) {
  RocmSmiReport out;
  std::vector<std::string> head;
  bool any = false;
  detail::for_each_line(text, [&](std::string_view line) {
    if (detail::trim_view(line).empty()) return;
    if (head.empty()) {
      if (line.starts_with("device,")) head = csv_cells(line);
      return;
    }
    auto cells = csv_cells(line);
    if (cells.front().empty()) return;
    any = true;
    RocmSmiCard card{.card = cells.front()};
    for (std::size_t i = 1; i < cells.size() && i < head.size(); ++i)
      card_value(card, out.driver_version, head[i], cells[i]);
    bool system = card.card == "system" || card.card == "cardsystem";
    if (!system && out.cards.size() < k_max_cards) out.cards.push_back(std::move(card));
  });
  if (!any) return std::nullopt;
  sort_cards(out.cards);
  return out;
}

std::optional<RocmSmiReport> rocm_smi_table(std::string_view text) {
  RocmSmiReport out;
  bool header = false, node_column = false, expect_name = false;
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    std::size_t pos = 0;
    std::string_view first = detail::next_token(t, pos);
    if (t.empty() || t.starts_with("=")) {
      expect_name = false;
      return;
    }
    if (!header) {
      header = (first == "Device" || first == "GPU") &&
               (t.find("Temp") != std::string_view::npos || t.find("SCLK") != std::string_view::npos);
      std::size_t p2 = pos;
      node_column = header && detail::next_token(t, p2) == "Node";
      return;
    }
    if (!all_digits(first) || first.size() > 6) {
      // The name line under a device row: "        AMD Instinct MI300X".
      if (expect_name && detail::indent_of(line) > 0 && !out.cards.empty() && !t.starts_with("("))
        out.cards.back().device_name = std::string(t);
      expect_name = false;
      return;
    }
    if (out.cards.size() >= k_max_cards) return;
    RocmSmiCard card{.card = std::string(first)};
    std::string_view second = detail::next_token(t, pos);
    if (node_column) { // "0  1  0x744c,  12345 ..."
      card.node_id = small_int(second);
      std::string_view did = detail::next_token(t, pos);
      if (did.ends_with(',')) did.remove_suffix(1);
      if (did.starts_with("0x")) card.device_id = std::string(did);
    } else if (second.starts_with("[0x")) { // "0  [0x74a1 : 0x00]  ..."
      card.device_id = std::string(second.substr(1));
      if (detail::next_token(t, pos) == ":") {
        std::string_view rev = detail::next_token(t, pos);
        if (rev.ends_with(']')) rev.remove_suffix(1);
        card.device_rev = std::string(rev);
      }
    }
    std::size_t nps = t.find(" NPS");
    if (nps != std::string_view::npos) {
      std::size_t p = nps;
      std::string_view mem = detail::next_token(t, p), compute = detail::next_token(t, p);
      card.partitions = std::string(mem) + " " + std::string(compute);
    }
    out.cards.push_back(std::move(card));
    expect_name = true;
  });
  if (out.cards.empty()) return std::nullopt;
  return out;
}

} // namespace gpudoctor::parse
