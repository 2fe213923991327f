// Redaction of a recorded snapshot before it leaves the machine (snapshot-v1 "Redaction").
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpudoctor {

// Names that look like secrets: *TOKEN*, *SECRET*, *PASSWORD*, *PASSWD*, *_KEY, *API_KEY*, *CREDENTIAL*.
bool is_secret_name(const std::string& name);
// "https://user:pass@host/x" -> "https://<redacted>@host/x"; other text unchanged.
std::string redact_url_credentials(const std::string& value);

struct RedactionLog {
  std::vector<std::string> redacted; // manifest "redacted": "env:NAME", "hostname", "user"
};

// Rewrites env.json (secrets; with `obfuscate` also the hostname and user names) and identity.json in place.
RedactionLog redact_snapshot(const std::filesystem::path& dir, bool obfuscate);
// In the recorded configuration files (shell profiles, /etc/environment, pip.conf, apt/dnf sources,
// daemon.json): values of secret-looking names and URL credentials. Logs "file:/PATH" for each file changed.
void redact_config_files(const std::filesystem::path& dir, RedactionLog& log);
// In the recorded kernel logs (dmesg, journal-kernel-previous): secret-looking name=value words and URL
// credentials. Logs "cmd:KEY" for each output changed.
void redact_kernel_logs(const std::filesystem::path& dir, RedactionLog& log);

} // namespace gpudoctor
