#include "bundle/redact.hpp"

#include "bundle/obfuscate.hpp"
#include "bundle/obfuscation_key.hpp"
#include "knowledge/knowledge.hpp"
#include "system/snapshot.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& p) {
  return read_whole_file(p).value_or("");
}

// A variable's value: by its name, else its credentials and secret shapes. A variable the checks judge
// keeps its value but for secret shapes, whose consistent placeholders change no conclusion.
void redact_environment(const fs::path& dir, TextRedactor& redactor, RedactionLog& log) {
  auto j = parse_json(read_all(dir / "env.json"));
  if (!j || !j->is_object()) return;
  Json out = Json::object();
  bool changed = false;
  for (const auto& [name, value] : j->items()) {
    std::string v = value.is_string() ? value.get<std::string>() : "";
    std::string redacted = redactor.names().redact(name)   ? std::string(k_redacted)
                           : redactor.names().judged(name) ? redactor.shapes(v)
                                                           : redactor.scrub(v, true);
    if (redacted != v) log.redacted.push_back("env:" + name);
    changed = changed || redacted != v || !value.is_string();
    out[name] = redacted;
  }
  if (!changed) return;
  if (auto written = write_whole_file(dir / "env.json", dump_json(out)); !written)
    log.failed.push_back(written.error());
}

SecretNames secret_names(const RedactOptions& options) {
  if (options.kb) return SecretNames(*options.kb);
  static const auto builtin = load_knowledge();
  return builtin ? SecretNames(*builtin) : SecretNames();
}

} // namespace

RedactionLog redact_snapshot(const fs::path& dir, const RedactOptions& options) {
  RedactionLog log;
  TextRedactor redactor(secret_names(options));
  redact_environment(dir, redactor, log);
  redact_recorded_files(dir, redactor, log);
  for (const auto& path : options.skipped)
    log.redacted.push_back("skipped:" + path);
  for (auto& entry : log.redacted) // a path can hold a secret's shape as well as a file can
    entry = redactor.shapes(entry);
  for (const auto& [path, why] : options.left_out)
    log.left_out[redactor.shapes(path)] = redactor.shapes(why);
  Identity id;
  if (auto j = parse_json(read_all(dir / "identity.json")); j && j->is_object())
    id = snapshot::identity_from_json(*j);
  log.host = id.hostname;
  if (!options.obfuscate) return log;

  std::string key = options.obfuscation_key.empty() ? random_obfuscation_key() : options.obfuscation_key;
  Obfuscator obfuscator(dir, key);
  auto done = obfuscator.apply(dir, log.failed);
  // What was redacted is named by paths that name the user too.
  for (auto& entry : log.redacted)
    entry = obfuscator.text(entry);
  std::map<std::string, std::string> left_out;
  for (const auto& [path, why] : log.left_out) // a home's path names its user
    left_out[obfuscator.text(path)] = obfuscator.text(why);
  log.left_out = std::move(left_out);
  log.redacted.insert(log.redacted.end(), done.begin(), done.end());
  log.host = obfuscator.text(id.hostname);
  log.warnings = obfuscator.identities().kept;
  for (const auto& why : log.warnings) // the manifest says which names were left, and why
    log.redacted.push_back("kept:" + why);
  log.note =
      options.key_from_file && !options.obfuscation_key.empty()
          ? fmt::format("pseudonyms keyed by the site's key {}: bundles of that key give a host, a user, "
                        "an address the same pseudonym",
                        obfuscator.pseudonyms().key_id())
          : "pseudonyms keyed by a random key of this bundle alone: they compare with no other bundle";
  return log;
}

RedactionLog redact_snapshot(const fs::path& dir, bool obfuscate) {
  RedactOptions options;
  options.obfuscate = obfuscate;
  return redact_snapshot(dir, options);
}

} // namespace gpudoctor
