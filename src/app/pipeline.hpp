// Collect, then judge: the run shared by `check`, `bundle`, `fix` and `migrate`.
#pragma once

#include "app/commands.hpp"
#include "engine/catalogue.hpp"
#include "knowledge/knowledge.hpp"
#include "knowledge/stacks.hpp"
#include "report/report.hpp"
#include "system/system_view.hpp"
#include "util/diagnostics.hpp"

#include <expected>
#include <future>
#include <string>

namespace gpudoctor {

struct Loaded {
  Knowledge kb;
  Catalogue cat;
};

// Loads the knowledge tables and catalogues; the error names the file and line, and exits 2 when the user's
// --knowledge folder is at fault (bad input, shared/spec/report-v1.md), 3 when the built-in data is.
std::expected<Loaded, Failure> load_data(const CheckOptions& opt);

// With `stacks` (fix, migrate, bundle) the facts hold the fix inventory too (Facts::inventory). With
// opt.gpus (check and probe --gpus) the per-GPU results are those of the chosen GPUs, the probes see only
// them, and the report says which they are; a word that names no GPU fails (exit 2).
std::expected<Report, Failure> run_pipeline(SystemView& view, const Loaded& data, const CheckOptions& opt,
                                            const Stacks* stacks = nullptr);

// The same while `loading` (load_data on another thread) finishes: the collectors that need no table start
// at once, and the pipeline waits for the tables where the first collector reads them (`check`: 5 ms of
// loading off its critical path). A load that failed is the pipeline's failure.
using LoadingData = std::shared_future<std::expected<Loaded, Failure>>;
std::expected<Report, Failure> run_pipeline(SystemView& view, const LoadingData& loading,
                                            const CheckOptions& opt);

// Prints the report in the requested format to stdout, or replaces opt.output with it (atomically: a
// reader such as node_exporter sees the old report or the new one). Fails (exit 2) when it cannot be written.
std::expected<void, Failure> print_report(const Report& report, const Loaded& data, const CheckOptions& opt);

} // namespace gpudoctor
