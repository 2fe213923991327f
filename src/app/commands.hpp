// The subcommands, independent of the command-line parser (main.cpp owns CLI11).
// Each returns its Outcome (util/diagnostics.hpp): the exit status of shared/spec/report-v1.md, or the
// failure that stopped it, which main says once.
#pragma once

#include "bundle/upload.hpp"
#include "util/diagnostics.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

enum class ColorMode { automatic, always, never };
// How fix --apply, migrate --apply|--resume|--finish and undo report what goes on (app/fix_frontend.hpp).
enum class EventsFormat { text, json };

struct CheckOptions {
  std::optional<std::string> from;    // snapshot folder or .tar.gz
  std::string format = "text";        // text | json | html | prometheus | junit | npd (docs/fleet.md)
  std::string output;                 // write the report to this file (atomically) instead of stdout
  std::size_t max_output_length = 80; // --format npd: the message fits in this many bytes
  bool verbose = false;
  bool strict = false;
  std::vector<std::string> only; // check ids
  std::vector<std::string>
      gpus; // check/probe -i/--gpus: index, PCI address or UUID (collect/gpu_selection.hpp)
  std::vector<std::string> pythons; // --python
  int timeout_ms = 5000;            // per vendor tool
  ColorMode color = ColorMode::automatic;
  std::string knowledge_dir;    // empty: built in
  bool probes = false;          // --probes: build/run the GPU probes (docs/probes.md)
  bool online = false;          // --online: fetch the configured GPU vendor repositories and wheel indexes
  int probe_timeout_ms = 30000; // per probe process
  // --backend cuda|hip (repeatable): compile these probes even without a GPU or driver of their vendor
  // (default: a vendor's probes are compiled only where its GPUs or driver are).
  std::vector<std::string> probe_backends;
  // The node's history (docs/fleet.md, "History"): keep the report, redacted, in root's history folder or
  // in history_dir; its newest report is also the previous reading of the counters.
  bool history = false;
  std::string history_dir; // empty: root's, /var/lib/gpudoctor/history
  std::size_t history_max_reports = 1000;
  std::size_t history_max_mib = 64;
  std::string textfile; // --textfile: also the Prometheus metrics, where the file's folder exists
  // `probe`: its textfile holds the probe families alone (report/program_formats.hpp); with if_idle, no
  // probe runs while a GPU is busy (docs/fleet.md, "Probe figures").
  bool probe_run = false;
  bool if_idle = false;
};

struct BundleOptions {
  std::string output; // .tar.gz path; empty: gpudoctor-bundle-<host>-<time>.tar.gz
  bool obfuscate = false;
  std::string obfuscate_key; // --obfuscate-key FILE (implies obfuscate); empty: a random key per bundle
  UploadOptions upload;      // url empty: no upload
  std::string root;          // tests: record the files below ROOT (fix --root's machine), running no command
  CheckOptions check;
};

Outcome cmd_check(const CheckOptions& opt);
Outcome cmd_list_checks();
Outcome cmd_explain(const std::string& id);
Outcome cmd_bundle(const BundleOptions& opt);
// gpudoctor probe: check --probes, reporting only the checks that judge probe results.
Outcome cmd_probe(const CheckOptions& opt);

// gpudoctor fix and migrate (docs/fixes.md).
struct FixOptions {
  std::string id;                           // empty: list the fixes the checks point to
  std::optional<std::string> from;          // plan for a snapshot (the script refuses to run elsewhere)
  std::string emit;                         // write the script here instead of printing it
  bool apply = false;                       // run it, step by step
  bool yes = false;                         // without asking first
  EventsFormat events = EventsFormat::text; // --events json: what goes on as JSON lines on stdout
  std::string mirror;                       // repository setup points at this mirror (scheme://host replaced)
  std::string driver, cuda, rocm, torch;    // version overrides
  std::string gpu;                          // the incoming card (a model name or PCI id) the versions are for
  bool any_host = false;                    // the script does not check the host name
  bool unhold = false;                      // held packages of the stack are released (journaled; undo holds)
  bool stop_gpu_users = false;              // processes using the old GPU are stopped before the purge
  bool render_all = false;                  // tests: every step, even those with nothing to do here
  std::string root; // tests: facts from the files below ROOT, --apply runs in chroot ROOT
  CheckOptions check;
};

struct MigrateOptions {
  std::string to; // nvidia | amd
  bool resume = false;
  bool finish = false;               // close the migration that ran to its end and free its undo cache
  bool remove_present_stack = false; // both vendors' GPUs in: the old stack goes anyway
  FixOptions fix;
};

struct UndoOptions {
  std::string root; // tests, as for fix
  bool yes = false;
  EventsFormat events = EventsFormat::text;
  std::string state; // the state file of the apply to undo (default: the last apply); root takes only its own
  std::string script; // the apply of this script id, from root's records
  std::string run;    // with script: only this run of it
};

// gpudoctor fleet and diff: many nodes' reports side by side, and one machine's two reports compared
// (docs/fleet.md, "Comparing nodes").
struct FleetOptions {
  std::vector<std::string> paths; // reports, snapshot folders, bundles, and folders of them
  std::string format = "text";    // text | json | html
  std::string output;             // write here (atomically) instead of stdout
  bool verbose = false;
  bool strict = false;  // exit 1 on a warning or a drifting property too
  bool rejudge = false; // judge every snapshot and bundle now instead of reading its report.json
  int jobs = 0;         // reading threads; 0: one per core
  ColorMode color = ColorMode::automatic;
};

struct DiffOptions {
  std::string before, after;
  std::string format = "text"; // text | json | html
  std::string output;
  bool force = false; // compare reports that are not of one machine (fleet/report_diff.hpp)
  ColorMode color = ColorMode::automatic;
  // --last-good / --last: `before` is the newest kept report without an error (of this or an older
  // gpudoctor) / the newest kept report; `after` (the one path given) defaults to a check of this machine
  // now.
  bool last_good = false, last = false;
  std::string history_dir;          // empty: root's
  std::vector<std::string> pythons; // --python, for the check of now
  int timeout_ms = 5000;            // --timeout, likewise
};

// gpudoctor history: the reports kept on this machine (docs/fleet.md, "History").
struct HistoryOptions {
  std::string history_dir;     // empty: root's
  std::string format = "text"; // text | json
};
Outcome cmd_history(const HistoryOptions& opt);

Outcome cmd_fleet(const FleetOptions& opt);
Outcome cmd_diff(const DiffOptions& opt);

Outcome cmd_fix(const FixOptions& opt);
Outcome cmd_migrate(const MigrateOptions& opt);
Outcome cmd_undo(const UndoOptions& opt);

} // namespace gpudoctor
