#include "bundle/secret_names.hpp"

#include "knowledge/knowledge.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// "Client-Secret" -> "client_secret", "--password" -> "password".
std::string normalized(std::string_view name) {
  std::string n = text::lower(name);
  for (char& c : n)
    if (c == '-' || c == '.') c = '_';
  auto first = n.find_first_not_of('_');
  return first == std::string::npos ? std::string() : n.substr(first);
}

bool matches(const SecretNameRow& rule, const std::string& n) {
  const std::string& t = rule.text;
  auto counts = [&](std::size_t at) {
    const std::string& unless = rule.unless_followed_by;
    return unless.empty() || n.compare(at + t.size(), unless.size(), unless) != 0;
  };
  if (rule.match == "exact") return n == t;
  if (rule.match == "prefix") return text::starts_with(n, t) && counts(0);
  if (rule.match == "suffix") return text::ends_with(n, t);
  for (std::size_t at = n.find(t); at != std::string::npos; at = n.find(t, at + 1))
    if ((rule.match == "contains" || at == 0 || n[at - 1] == '_') && counts(at)) return true;
  return false;
}

bool any_match(const std::vector<SecretNameRow>& rules, const std::string& n, bool strong_only) {
  return std::any_of(rules.begin(), rules.end(),
                     [&](const SecretNameRow& r) { return (!strong_only || r.strong) && matches(r, n); });
}

// Whether `name` holds a secret by the rules: never a place; `strong_only`: by a rule that leaves no doubt.
bool secret_by_rules(const SecretRules& rules, std::string_view name, bool strong_only) {
  std::string n = normalized(name);
  return !n.empty() && !any_match(rules.places, n, false) && any_match(rules.names, n, strong_only);
}

} // namespace

bool says_secret(std::string_view name) {
  return secret_by_rules(builtin_secret_rules(), name, true);
}

bool is_secret_name(std::string_view name) {
  return secret_by_rules(builtin_secret_rules(), name, false);
}

SecretNames::SecretNames() : m_rules(builtin_secret_rules()) {}

SecretNames::SecretNames(const Knowledge& kb) : m_rules(kb.secrets) {
  for (const auto& row : kb.env.nccl_vars)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.nccl_foreign)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.nccl_risky)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.device_selection)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.vendor_variables)
    m_listed.insert(row.name);
  m_listed.insert(kb.gpu_env_names.begin(), kb.gpu_env_names.end());
  m_families = kb.gpu_env_prefixes;
  for (const auto& row : kb.env.nccl_prefixes)
    m_families.push_back(row.prefix);
}

bool SecretNames::listed(std::string_view name) const {
  return m_listed.find(name) != m_listed.end();
}

bool SecretNames::in_family(std::string_view name) const {
  for (const auto& prefix : m_families)
    if (name.size() > prefix.size() && text::starts_with(name, prefix)) return true;
  return false;
}

bool SecretNames::judged(std::string_view name) const {
  return listed(name) || in_family(name);
}

bool SecretNames::redact(std::string_view name) const {
  if (listed(name)) return false;
  return secret_by_rules(m_rules, name, in_family(name));
}

} // namespace gpudoctor
