// What `check` does for the node's history and the timer (docs/fleet.md, "History"): the folder a command
// uses, the report kept there (redacted as a bundle is), and the Prometheus textfile written beside.
#pragma once

#include "app/commands.hpp"
#include "app/pipeline.hpp"
#include "fleet/node_report.hpp"
#include "system/history_store.hpp"
#include "util/json_reader.hpp"

#include <expected>
#include <string>
#include <string_view>

namespace gpudoctor {

// The history folder of `given` (--history-dir), else root's. A user who is not root and names none is
// refused (exit 2) with the reason: `what` names the command ("gpudoctor history").
std::expected<std::string, Failure> history_folder(const std::string& given, std::string_view what);

// Opens the folder `check --history` keeps in, making it when missing: before the checks run, so that a
// folder root must not write in is said at once. With --from only a named folder: root's history is this
// machine's.
std::expected<history::Folder, Failure> open_history_for_check(const CheckOptions& opt);

// The report as the history keeps it: JSON, redacted (bundle/redact_report.hpp).
std::string kept_report_text(const Report& report, const Knowledge& kb);

// Keeps the report and removes what is over the bounds; the error exits 2 (an output that cannot be written).
std::expected<history::Entry, Failure> keep_report(history::Folder& folder, const Report& report,
                                                   const Loaded& data, const CheckOptions& opt);

// A kept report read as `diff` and `fleet` read reports; the error says why not.
std::expected<NodeReport, std::string> read_kept_report(const history::Folder& folder, JsonReader& json,
                                                        const std::string& name, const ReadOptions& opt);

// --textfile: the Prometheus metrics replace `path` (0644) where its folder exists; where it does not
// (node_exporter is not installed) a note says so and nothing is written.
// `probes_only`: the probe run's families alone (render_prometheus_probes).
std::expected<void, Failure> write_textfile(const Report& report, const std::string& path, bool probes_only);

} // namespace gpudoctor
