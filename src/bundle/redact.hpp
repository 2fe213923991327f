// Redaction of a recorded snapshot before it leaves the machine (snapshot-v1 "Redaction";
// docs/security.md, "Redaction and obfuscation").
#pragma once

#include "bundle/redact_text.hpp"
#include "bundle/secret_names.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace gpudoctor {

struct Knowledge;

struct RedactionLog {
  // manifest "redacted": "env:NAME", "file:/PATH" (each name a file was read by), "hostname", "user", ...
  std::vector<std::string> redacted;
};

struct RedactOptions {
  const Knowledge* kb = nullptr; // the variables the checks judge, never redacted by name; null: built-in
  bool obfuscate = false;
};

// Rewrites the snapshot in `dir` in place: env.json (by name, credentials and shapes), every recorded file
// (redact_recorded_files) and, with `obfuscate`, the names of the user and the host everywhere.
RedactionLog redact_snapshot(const std::filesystem::path& dir, const RedactOptions& options);
RedactionLog redact_snapshot(const std::filesystem::path& dir, bool obfuscate);

// Every recorded file below `dir` except env.json, identity.json and manifest.json: configuration files
// (redact_config.hpp) wherever they are and through links to them, JSON by its keys, all other text for
// credentials and secret shapes, and secret shapes in names and link targets. Logs "file:/PATH" for each file
// changed, under every name it was read by ("file:cmd/..." for command outputs).
void redact_recorded_files(const std::filesystem::path& dir, TextRedactor& redactor, RedactionLog& log);

} // namespace gpudoctor
