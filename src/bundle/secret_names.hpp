// Which names hold secrets: environment variables, shell and INI assignments, JSON keys, command-line flags
// and URL query fields. Variables the knowledge tables judge are never redacted by name, so a bundle
// concludes what the live run concluded (docs/security.md, "Redaction and obfuscation").
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct Knowledge;

// Any secret pattern: *TOKEN*, *SECRET*, *PASSWORD*, *PASSWD*, *API_KEY*, *CREDENTIAL*, *PRIVATE_KEY*,
// *ACCESS_KEY*, *WEBHOOK*, *_AUTH*, *CONNECTION_STRING*, and the suffixes _KEY, _PWD, _PASS, _PAT, _JWT,
// _DSN. Names of places (ending in _DIR, _PATH, _HOME, _ROOT, _CACHE, _FILE, _SOCK) and TOKENIZERS_* are not
// secrets. Case, '-' and '.' do not matter ("client-secret" = CLIENT_SECRET).
bool is_secret_name(std::string_view name);
// The patterns that leave no doubt (TOKEN, SECRET, PASSWORD, API_KEY, ...): not the suffixes, which a
// setting's name can end in by chance (a CACHE_KEY, an IB_AUTH mode).
bool says_secret(std::string_view name);

class SecretNames {
public:
  SecretNames() = default; // no knowledge tables: every name by its pattern
  explicit SecretNames(const Knowledge& kb);

  // A name a knowledge table lists, or of a family it lists (NCCL_*, CUDA_*, HSA_*, ...).
  bool judged(std::string_view name) const;
  // Whether the value of `name` is replaced: never for a name a table lists; for the rest of a judged
  // family only when the name says so (NVIDIA_API_KEY); otherwise by is_secret_name.
  bool redact(std::string_view name) const;

private:
  bool listed(std::string_view name) const;
  bool in_family(std::string_view name) const;

  std::set<std::string, std::less<>> m_listed;
  std::vector<std::string> m_families;
};

} // namespace gpudoctor
