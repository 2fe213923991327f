// Which names hold secrets: environment variables, shell and INI assignments, JSON keys, command-line flags
// and URL query fields. Variables the knowledge tables judge are never redacted by name, so a bundle
// concludes what the live run concluded (docs/security.md, "Redaction and obfuscation").
#pragma once

#include "knowledge/knowledge_secrets.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct Knowledge;

// Whether a name holds a secret by the built-in rules (checks/knowledge/secrets.yaml, secret_names and
// place_names): *TOKEN*, *SECRET*, *PASSWORD*, OP_SESSION_*, *_SESSION, the suffixes _KEY, _PWD, ... but
// never a place (*_DIR, *_PATH, *_SOCK, ...). Case, '-' and '.' do not matter ("client-secret" =
// CLIENT_SECRET).
bool is_secret_name(std::string_view name);
// By the rules that leave no doubt (strong: TOKEN, SECRET, PASSWORD, API_KEY, ...): not the suffixes, which a
// setting's name can end in by chance (a CACHE_KEY, an IB_AUTH mode).
bool says_secret(std::string_view name);

class SecretNames {
public:
  SecretNames(); // the built-in rules, no judged tables: every name by the rules
  explicit SecretNames(const Knowledge& kb);

  // The rules names and values are judged by (secret_shapes uses rules().shapes).
  const SecretRules& rules() const { return m_rules; }

  // A name a knowledge table lists, or of a family it lists (NCCL_*, CUDA_*, HSA_*, ...).
  bool judged(std::string_view name) const;
  // Whether the value of `name` is replaced: never for a name a table lists; for the rest of a judged
  // family only by a strong rule (NVIDIA_API_KEY); otherwise by any rule.
  bool redact(std::string_view name) const;

private:
  bool listed(std::string_view name) const;
  bool in_family(std::string_view name) const;

  SecretRules m_rules;
  std::set<std::string, std::less<>> m_listed;
  std::vector<std::string> m_families;
};

} // namespace gpudoctor
