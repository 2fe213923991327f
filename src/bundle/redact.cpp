#include "bundle/redact.hpp"

#include "bundle/obfuscate.hpp"
#include "system/snapshot.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_redacted = "<redacted>";

std::string read_all(const fs::path& p) {
  return read_whole_file(p).value_or("");
}

} // namespace

bool is_secret_name(const std::string& name) {
  std::string n = text::lower(name);
  // Where a secret or a cache lives is no secret: TIKTOKEN_CACHE_DIR, HF_TOKEN_PATH.
  for (const char* place : {"_dir", "_path", "_home", "_root", "_cache"})
    if (text::ends_with(n, place)) return false;
  if (text::starts_with(n, "tokenizers_")) return false; // Hugging Face tokenizers' settings
  for (const char* part :
       {"token", "secret", "password", "passwd", "api_key", "apikey", "credential", "private_key"})
    if (text::contains(n, part)) return true;
  return text::ends_with(n, "_key") || n == "key";
}

std::string redact_url_credentials(const std::string& value) {
  std::string out;
  std::size_t pos = 0;
  while (pos < value.size()) {
    auto scheme = value.find("://", pos);
    if (scheme == std::string::npos) break;
    std::size_t start = scheme + 3;
    std::size_t end = value.find_first_of("/ ,;\"'", start);
    if (end == std::string::npos) end = value.size();
    std::size_t at = value.rfind('@', end == 0 ? 0 : end - 1);
    out += value.substr(pos, start - pos);
    if (at != std::string::npos && at >= start && at < end) {
      out += k_redacted;
      pos = at; // keep "@host..."
    } else {
      pos = start;
    }
  }
  out += value.substr(pos);
  return out;
}

RedactionLog redact_snapshot(const fs::path& dir, bool obfuscate) {
  RedactionLog log;
  Identity id;
  if (auto j = parse_json(read_all(dir / "identity.json")); j && j->is_object())
    id = snapshot::identity_from_json(*j);
  StandIns stand_ins;
  if (obfuscate) {
    if (!id.hostname.empty()) stand_ins.push_back({id.hostname, "host-1"});
    if (!id.user.empty() && id.user != "root" && id.user != id.hostname)
      stand_ins.push_back({id.user, "user-1"});
    // The longer word first: a host "alice-gpu" of user "alice" becomes host-1, not user-1-gpu.
    std::sort(stand_ins.begin(), stand_ins.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }
  auto scrub = [&](const std::string& s) { return replace_words(s, stand_ins); };
  auto stand_in_of = [&](const std::string& word) -> std::string {
    for (const auto& [from, to] : stand_ins)
      if (from == word) return to;
    return {};
  };
  if (auto j = parse_json(read_all(dir / "env.json")); j && j->is_object()) {
    Json out = Json::object();
    for (const auto& [name, value] : j->items()) {
      std::string v = value.is_string() ? value.get<std::string>() : "";
      if (is_secret_name(name)) {
        log.redacted.push_back("env:" + name);
        out[name] = k_redacted;
        continue;
      }
      std::string without_credentials = redact_url_credentials(v);
      if (without_credentials != v) log.redacted.push_back("env:" + name);
      out[name] = scrub(without_credentials);
    }
    write_whole_file(dir / "env.json", dump_json(out));
  }
  redact_config_files(dir, log);
  redact_kernel_logs(dir, log);
  if (obfuscate) {
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
    // Everything else that names them: /home/<user> in the tree and in paths, outputs, command keys.
    auto changed = obfuscate_tree(dir, stand_ins, {"env.json", "identity.json", "manifest.json"});
    if (!changed.empty()) log.redacted.push_back("names in " + std::to_string(changed.size()) + " files");
  }
  return log;
}

} // namespace gpudoctor
