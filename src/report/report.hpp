// The report of one run: facts and results, rendered as JSON (shared/spec/report-v1.md) or text.
#pragma once

#include "collect/gpu_selection.hpp"
#include "engine/catalogue.hpp"
#include "engine/result.hpp"
#include "facts/facts.hpp"
#include "util/diagnostics.hpp"
#include "util/json.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct Report {
  std::string source_kind = "live"; // live | snapshot
  std::string source_path;          // the snapshot's path, for replays
  Facts facts;
  std::vector<Result> results;
  std::optional<GpuSelection> selection; // check/probe --gpus: the GPUs the per-GPU results are about
  // When the run ended and how long collecting and judging took (the metrics' timestamp and duration).
  std::chrono::system_clock::time_point finished{};
  std::chrono::milliseconds duration{0};
};

struct Summary {
  int pass = 0, info = 0, warn = 0, error = 0, skip = 0;
};
Summary summarize(const std::vector<Result>& results);

Json report_to_json(const Report& report);

struct TextOptions {
  bool verbose = false; // also list what passed and was skipped
  bool color = false;
};
std::string render_text(const Report& report, const Catalogue& cat, const TextOptions& opt);

// One self-contained HTML page (report_html.cpp): `check --format html`, a bundle's report.html.
std::string render_html(const Report& report, const Catalogue& cat);

// Exit status of `gpudoctor check` (report-v1): 1 on any error result (with `strict`, on warn too).
Exit exit_status(const std::vector<Result>& results, bool strict);

} // namespace gpudoctor
