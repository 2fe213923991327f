// Redaction of a recorded snapshot before it leaves the machine (snapshot-v1 "Redaction";
// docs/security.md, "Redaction and obfuscation").
#pragma once

#include "bundle/redact_text.hpp"
#include "bundle/secret_names.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpudoctor {

struct Knowledge;

struct RedactionLog {
  // manifest "redacted": "env:NAME", "file:/PATH" (each name a file was read by), "hostname", "user", ...
  std::vector<std::string> redacted;
  std::string note;                  // for the manifest's note: how names were obfuscated
  std::string host;                  // the hostname as the bundle has it (its pseudonym with obfuscation)
  std::vector<std::string> warnings; // for the user: names left as they are, and why
  std::vector<std::string> failed;   // writes that failed (a full disk): the folder may still hold secrets
  std::map<std::string, std::string>
      left_out; // RedactOptions::left_out, redacted and obfuscated like the rest
};

struct RedactOptions {
  const Knowledge* kb = nullptr; // the variables the checks judge, never redacted by name; null: built-in
  bool obfuscate = false;
  std::string obfuscation_key; // the key of the pseudonyms (bytes); empty: a random key for this bundle
  bool key_from_file = false;  // the key is a site's (--obfuscate-key), so pseudonyms compare across bundles
  std::vector<std::string> skipped;            // paths the recorder refused to read: listed as "skipped:PATH"
  std::map<std::string, std::string> left_out; // files left out for a bound, with why: for the manifest
};

// Rewrites the snapshot in `dir` in place: env.json (by name, credentials and shapes), every recorded file
// (redact_recorded_files) and, with `obfuscate`, every identity (obfuscate.hpp), the log's entries included.
RedactionLog redact_snapshot(const std::filesystem::path& dir, const RedactOptions& options);
RedactionLog redact_snapshot(const std::filesystem::path& dir, bool obfuscate);

// Every recorded file below `dir` except env.json, identity.json and manifest.json: configuration files
// (redact_config.hpp) wherever they are and through links to them, JSON by its keys, all other text for
// credentials and secret shapes, and secret shapes in names and link targets. Logs "file:/PATH" for each file
// changed, under every name it was read by ("file:cmd/..." for command outputs).
void redact_recorded_files(const std::filesystem::path& dir, TextRedactor& redactor, RedactionLog& log);

} // namespace gpudoctor
