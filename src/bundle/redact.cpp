#include "bundle/redact.hpp"

#include "bundle/obfuscate.hpp"
#include "knowledge/knowledge.hpp"
#include "system/snapshot.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>

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
  for (const auto& [name, value] : j->items()) {
    std::string v = value.is_string() ? value.get<std::string>() : "";
    std::string redacted = redactor.names().redact(name)   ? std::string(k_redacted)
                           : redactor.names().judged(name) ? redactor.shapes(v)
                                                           : redactor.scrub(v, true);
    if (redacted != v) log.redacted.push_back("env:" + name);
    out[name] = redacted;
  }
  write_whole_file(dir / "env.json", dump_json(out));
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
  if (!options.obfuscate) return log;

  Identity id;
  if (auto j = parse_json(read_all(dir / "identity.json")); j && j->is_object())
    id = snapshot::identity_from_json(*j);
  StandIns stand_ins;
  if (!id.hostname.empty()) stand_ins.push_back({id.hostname, "host-1"});
  if (!id.user.empty() && id.user != "root" && id.user != id.hostname)
    stand_ins.push_back({id.user, "user-1"});
  // The longer word first: a host "alice-gpu" of user "alice" becomes host-1, not user-1-gpu.
  std::sort(stand_ins.begin(), stand_ins.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  auto scrub = [&](const std::string& s) { return replace_words(s, stand_ins); };
  auto stand_in_of = [&](const std::string& word) -> std::string {
    for (const auto& [from, to] : stand_ins)
      if (from == word) return to;
    return {};
  };
  if (auto host = stand_in_of(id.hostname); !host.empty()) {
    id.hostname = host;
    log.redacted.push_back("hostname");
  }
  if (auto user = stand_in_of(id.user); !user.empty()) {
    id.user = user;
    id.home = scrub(id.home);
    for (auto& group : id.groups) // the user's own group bears the name
      group = scrub(group);
    log.redacted.push_back("user");
  }
  write_whole_file(dir / "identity.json", dump_json(snapshot::identity_to_json(id)));
  // Everything else that names them: /home/<user> in the tree and in paths, outputs, command keys, values.
  auto changed = obfuscate_tree(dir, stand_ins, {"identity.json", "manifest.json"});
  if (!changed.empty()) log.redacted.push_back("names in " + std::to_string(changed.size()) + " files");
  return log;
}

RedactionLog redact_snapshot(const fs::path& dir, bool obfuscate) {
  RedactOptions options;
  options.obfuscate = obfuscate;
  return redact_snapshot(dir, options);
}

} // namespace gpudoctor
