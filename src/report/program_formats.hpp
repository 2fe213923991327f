// The report for programs other than gpudoctor's own JSON readers (docs/fleet.md): Prometheus' text
// exposition format (for node_exporter's textfile collector), JUnit XML, and a node-problem-detector custom
// plugin's one-line message with its exit status. Every string from the machine or a snapshot goes through
// util/escape for its reader.
#pragma once

#include "engine/catalogue.hpp"
#include "report/report.hpp"

#include <cstddef>
#include <string>

namespace gpudoctor {

// The value of gpudoctor_check_result: statuses ordered by what they ask of a person, so that `max` over a
// node is its worst result and `>= 3` means "look at it": pass 0, skip 1, info 2, warn 3, error 4.
int metric_value(Status s);

// Longest label value written (Prometheus' label_value_length_limit drops a whole scrape over it), and the
// most subjects one check id gets its own series for; the rest share the subject "(others)".
inline constexpr std::size_t k_label_bytes = 128;
inline constexpr std::size_t k_subjects_per_check = 32;

std::string render_prometheus(const Report& report);
// `probe --textfile`: the probe run's own textfile beside the timer's (docs/fleet.md, "Probe figures"): the
// probe checks as gpudoctor_probe_result, the measured bandwidths with their floors, and when it ran; no
// family the timer's textfile writes, so node_exporter reads both without a duplicate series.
std::string render_prometheus_probes(const Report& report);

// One testcase per result: error a failure; warn a failure with `strict`, else a passed case with its
// message in system-out; skip skipped.
std::string render_junit(const Report& report, const Catalogue& cat, bool strict);

// node-problem-detector's custom plugin protocol (pkg/custompluginmonitor/types): exit 0 OK, 1 NonOK, any
// other Unknown; it keeps the first max_output_length bytes of stdout (80 by default).
struct NpdOutput {
  std::string message; // one line, at most `max_bytes` bytes, without the line feed
  int exit_status = 0; // 0: no error (with strict: no warning either), 1: problems
};
// Smallest `max_bytes` allowed: the longest check id and a "(+N more)" fit.
inline constexpr std::size_t k_npd_min_bytes = 40;
NpdOutput render_npd(const Report& report, bool strict, std::size_t max_bytes);
// The line for a run that could not judge the machine (exit 2 or 3, NPD's Unknown): "gpudoctor could not
// judge this node: <why>", fitted the same way, so that the node condition says why instead of nothing.
std::string render_npd_failure(const std::string& why, std::size_t max_bytes);

} // namespace gpudoctor
