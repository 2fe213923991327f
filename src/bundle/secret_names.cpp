#include "bundle/secret_names.hpp"

#include "knowledge/knowledge.hpp"
#include "util/text.hpp"

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

bool names_a_place(const std::string& n) {
  // Where a secret or a cache lives is no secret: TIKTOKEN_CACHE_DIR, HF_TOKEN_PATH, SSH_AUTH_SOCK.
  for (const char* place : {"_dir", "_path", "_home", "_root", "_cache", "_file", "_sock", "_socket"})
    if (text::ends_with(n, place)) return true;
  return text::starts_with(n, "tokenizers_"); // Hugging Face tokenizers' settings
}

bool strong_word(const std::string& n) {
  for (const char* part : {"token", "secret", "password", "passwd", "passphrase", "api_key", "apikey",
                           "credential", "private_key", "access_key", "accesskey", "accountkey",
                           "sharedaccess", "webhook", "connection_string", "cookie"})
    if (text::contains(n, part)) return true;
  return false;
}

// AUTH as a word (PROXY_AUTH, AUTH_HEADER), not AUTHOR (GIT_AUTHOR_NAME).
bool auth_word(const std::string& n) {
  for (std::size_t at = n.find("auth"); at != std::string::npos; at = n.find("auth", at + 1))
    if ((at == 0 || n[at - 1] == '_') && n.compare(at + 4, 2, "or") != 0) return true;
  return false;
}

} // namespace

bool says_secret(std::string_view name) {
  std::string n = normalized(name);
  return !names_a_place(n) && strong_word(n);
}

bool is_secret_name(std::string_view name) {
  std::string n = normalized(name);
  if (n.empty() || names_a_place(n)) return false;
  if (strong_word(n) || auth_word(n) || text::contains(n, "jwt")) return true;
  for (const char* tail : {"_key", "_pwd", "_pass", "_pat", "_dsn"})
    if (text::ends_with(n, tail)) return true;
  return n == "key" || n == "pass";
}

SecretNames::SecretNames(const Knowledge& kb) {
  for (const auto& row : kb.env.nccl_vars)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.nccl_foreign)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.nccl_risky)
    m_listed.insert(row.name);
  for (const auto& row : kb.env.device_selection)
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
  if (in_family(name)) return says_secret(name);
  return is_secret_name(name);
}

} // namespace gpudoctor
