#include "parse/history_reading.hpp"

#include "parse/json_doc.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

using detail::JsonDoc;

// A count: a JSON whole number of at least 0.
std::optional<long long> count_in(const JsonDoc& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  long long v = it->get<long long>();
  return v >= 0 ? std::optional<long long>(v) : std::nullopt;
}

std::string text_in(const JsonDoc& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const JsonDoc* array_in(const JsonDoc& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? &*it : nullptr;
}

PreviousGpuCounters gpu_of(const JsonDoc& g) {
  PreviousGpuCounters c;
  c.bdf = text_in(g, "bdf");
  c.volatile_uncorrectable = count_in(g, "volatile_uncorrectable");
  c.aggregate_uncorrectable = count_in(g, "aggregate_uncorrectable");
  c.volatile_correctable = count_in(g, "volatile_correctable");
  c.aggregate_correctable = count_in(g, "aggregate_correctable");
  c.retired_sbe = count_in(g, "retired_pages_sbe");
  c.retired_dbe = count_in(g, "retired_pages_dbe");
  if (const JsonDoc* ras = array_in(g, "ras"))
    for (const auto& r : *ras)
      if (r.is_object() && c.ras.size() < k_max_reading_ras_blocks)
        c.ras.push_back({text_in(r, "block"), count_in(r, "ue").value_or(0), count_in(r, "ce").value_or(0)});
  if (const JsonDoc* links = array_in(g, "nvlink"))
    for (const auto& l : *links)
      if (l.is_object() && c.nvlinks.size() < k_max_reading_links)
        if (auto link = count_in(l, "link"); link && *link < 1 << 20)
          c.nvlinks.push_back(
              {static_cast<int>(*link), count_in(l, "replay"), count_in(l, "recovery"), count_in(l, "crc")});
  return c;
}

std::optional<PreviousEventCount> event_of(const JsonDoc& e) {
  std::string kind = text_in(e, "kind");
  PreviousEventCount c;
  if (kind == "xid")
    c.kind = KernelEventKind::xid;
  else if (kind == "sxid")
    c.kind = KernelEventKind::sxid;
  else
    return std::nullopt;
  if (auto code = count_in(e, "code"); code && *code <= 1000000) c.code = static_cast<int>(*code);
  c.pci = text_in(e, "pci");
  c.count = static_cast<std::size_t>(count_in(e, "count").value_or(0));
  return c;
}

} // namespace

std::optional<PreviousReading> previous_reading(std::string_view text) {
  auto j = detail::json_document(text);
  if (!j || !j->is_object()) return std::nullopt;
  PreviousReading p;
  p.report = text_in(*j, "report");
  if (p.report.empty()) return std::nullopt;
  p.time = text_in(*j, "time");
  p.tool_version = text_in(*j, "tool_version");
  p.boot_id = text::trim(text_in(*j, "boot_id"));
  p.read_at = text_in(*j, "read_at");
  if (const JsonDoc* gpus = array_in(*j, "gpus"))
    for (const auto& g : *gpus)
      if (g.is_object() && p.gpus.size() < k_max_reading_rows) p.gpus.push_back(gpu_of(g));
  if (const JsonDoc* events = array_in(*j, "events"))
    for (const auto& e : *events)
      if (e.is_object() && p.events.size() < k_max_reading_rows)
        if (auto c = event_of(e)) p.events.push_back(std::move(*c));
  return p;
}

} // namespace gpudoctor::parse
