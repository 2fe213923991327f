// The previous reading (facts/history_facts.hpp): this boot's id, and the counters of the newest report in
// the history folder. Live, gpudoctor reads that report itself and a recording keeps only the counters, as
// the summary `history-previous` (docs/snapshot.md); a replay answers from that record, never from the
// folder of the machine it runs on.
#include "collect/collectors.hpp"
#include "parse/history_reading.hpp"
#include "system/history_store.hpp"
#include "system/machine_paths.hpp"
#include "util/json.hpp"
#include "util/json_reader.hpp"
#include "util/text.hpp"
#include "util/utc_time.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

constexpr const char* k_key = "history-previous";
using parse::k_max_reading_links;
using parse::k_max_reading_ras_blocks;
using parse::k_max_reading_rows;

// The kernel-log events whose counts a later run compares (checks/kernel_xid.cpp).
bool counted_kind(std::string_view name) {
  return name == kernel_event_name(KernelEventKind::xid) || name == kernel_event_name(KernelEventKind::sxid);
}

Json number_or_null(const JsonValue& v) {
  auto n = v.integer();
  return n && *n >= 0 ? Json(*n) : Json(nullptr);
}

// The counters of a kept report (report-v1 with facts.health and facts.history), as the summary's JSON.
std::optional<std::string> counters_of(std::string_view name, std::string_view text) {
  JsonReader reader;
  auto root = reader.parse(text);
  if (!root || root->operator[]("format").text() != "gpudoctor-report") return std::nullopt;
  auto entry = history::entry_of(name);
  Json out = {{"report", std::string(name)},
              {"read_at", utc::now_iso8601()},
              {"time", entry ? entry->time : ""},
              {"tool_version", (*root)["tool"]["version"].text()},
              {"boot_id", (*root)["facts"]["history"]["boot_id"]["value"].text()}};
  const JsonValue health = (*root)["facts"]["health"];
  Json gpus = Json::array();
  health["nvidia_gpus"].each([&](JsonValue g) {
    if (gpus.size() >= k_max_reading_rows) return;
    JsonValue h = g["health"];
    Json nvlinks = Json::array();
    g["nvlink_errors"].each([&](JsonValue l) {
      if (nvlinks.size() < k_max_reading_links)
        nvlinks.push_back({{"link", number_or_null(l["link"])},
                           {"replay", number_or_null(l["replay"])},
                           {"recovery", number_or_null(l["recovery"])},
                           {"crc", number_or_null(l["crc"])}});
    });
    gpus.push_back({{"bdf", g["bus_id"].text()},
                    {"nvlink", nvlinks},
                    {"volatile_uncorrectable", number_or_null(h["volatile_uncorrectable"])},
                    {"aggregate_uncorrectable", number_or_null(h["aggregate_uncorrectable"])},
                    {"volatile_correctable", number_or_null(h["volatile_correctable"])},
                    {"aggregate_correctable", number_or_null(h["aggregate_correctable"])},
                    {"retired_pages_sbe", number_or_null(h["retired_pages_sbe"])},
                    {"retired_pages_dbe", number_or_null(h["retired_pages_dbe"])}});
  });
  health["gpus"].each([&](JsonValue g) {
    Json ras = Json::array();
    g["amdgpu_ras"].each([&](JsonValue r) {
      if (ras.size() < k_max_reading_ras_blocks)
        ras.push_back(
            {{"block", r["block"].text()}, {"ue", number_or_null(r["ue"])}, {"ce", number_or_null(r["ce"])}});
    });
    if (!ras.empty() && gpus.size() < k_max_reading_rows)
      gpus.push_back({{"bdf", g["bdf"].text()}, {"ras", ras}});
  });
  Json events = Json::array();
  health["kernel_log"]["events"].each([&](JsonValue e) {
    std::string kind = e["kind"].text();
    if (!counted_kind(kind) || e["boot"].text() != "this" || events.size() >= k_max_reading_rows) return;
    events.push_back({{"kind", kind},
                      {"code", number_or_null(e["code"])},
                      {"pci", e["pci"].text()},
                      {"count", number_or_null(e["count"])}});
  });
  out["gpus"] = gpus;
  out["events"] = events;
  return dump_json(out);
}

// Live: the newest kept report of `dir`, when the folder and the file are the running account's own and
// writable by nobody else (a report another user could write would tell root what was there before).
std::optional<std::string> read_previous(SystemView& view, const std::string& dir) {
  unsigned me = view.identity().uid;
  auto mine = [&](const std::optional<FileStat>& st, FileType type) {
    return st && st->type == type && st->uid == me && (st->mode & 022) == 0;
  };
  if (!mine(view.stat(dir), FileType::dir)) return std::nullopt;
  auto names = view.list_dir(dir);
  if (!names) return std::nullopt;
  std::vector<std::string> kept;
  for (auto& name : *names)
    if (history::entry_of(name)) kept.push_back(std::move(name));
  std::sort(kept.rbegin(), kept.rend());
  // The newest that is a report of the account's own; a few tries, not the whole folder.
  for (std::size_t i = 0; i < kept.size() && i < 8; ++i) {
    std::string path = dir + "/" + kept[i];
    if (view.read_link(path) || !mine(view.stat(path), FileType::file)) continue;
    if (auto text = view.read_file(path))
      if (auto counters = counters_of(kept[i], *text)) return counters;
  }
  return std::nullopt;
}

} // namespace

void collect_history(SystemView& view, const std::string& dir, HistoryFacts& out) {
  if (auto id = view.read_file(paths::boot_id)) {
    std::string trimmed = text::trim(*id);
    if (!trimmed.empty() && trimmed.size() <= 64) out.boot_id = {trimmed, file_source(paths::boot_id)};
  }
  out.source = std::string("summary ") + k_key;
  auto answer = view.summary(k_key, {"gpudoctor-history-previous", dir},
                             [&](SystemView& live) { return read_previous(live, dir); });
  if (!answer) {
    out.why_not = "no report kept in the history, or none readable";
    return;
  }
  out.previous = parse::previous_reading(*answer);
  if (!out.previous) out.why_not = "the recorded previous reading is malformed";
}

} // namespace gpudoctor
