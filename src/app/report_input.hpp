// The inputs of `fleet` and `diff` (docs/fleet.md, "Comparing nodes"): a JSON report, a snapshot folder or a
// bundle (.tar.gz), each read as a NodeReport; and the folders of such inputs that `fleet` walks.
#pragma once

#include "fleet/node_report.hpp"
#include "util/json_reader.hpp"

#include <expected>
#include <string>
#include <vector>

namespace gpudoctor {

struct ReportInput {
  std::string path;
  bool found_in_folder = false; // found by walking a folder, not named on the command line
};

// The command line's paths, with every folder that is not a snapshot walked (links not followed, 8 levels
// at most) for reports (*.json), bundles (*.tar.gz, *.tgz) and snapshot folders (with a manifest.json),
// in path order. A path that does not exist is kept: reading it says so.
std::vector<ReportInput> expand_inputs(const std::vector<std::string>& paths);

struct InputOptions {
  bool details = false; // diff: ReadOptions::details, and the package list of a snapshot judged now
  bool judge = false;   // judge snapshots and bundles now rather than read the report.json they hold
};

// Reads inputs one at a time; one reader per thread. A snapshot or bundle without a readable report.json
// of format 1 (one from before gpudoctor wrote it, say) is judged now by this gpudoctor, which loads its
// knowledge tables on first need and judges one snapshot at a time.
class InputReader {
public:
  explicit InputReader(InputOptions opt) : m_opt(opt), m_json(k_max_report_bytes) {}
  // The error says why the input could not be read, without naming it (its reader names it).
  std::expected<NodeReport, std::string> read(const std::string& path);

private:
  std::expected<NodeReport, std::string> read_report_file(const std::string& path);
  std::expected<NodeReport, std::string> read_snapshot(const std::string& path, bool folder);
  InputOptions m_opt;
  JsonReader m_json;
};

// What a bundle's manifest says of its pseudonyms (docs/security.md, "Redaction and obfuscation"): "site
// key 1a2b3c4d", "a key of this bundle alone", or "none".
std::string pseudonym_key(const std::string& manifest_note);

} // namespace gpudoctor
