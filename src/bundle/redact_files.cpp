// Redaction of the configuration files a snapshot records (shell profiles, /etc/environment, pip.conf, apt
// and dnf sources, daemon.json): ML users keep tokens in ~/.bashrc (export HF_TOKEN=...), private indexes
// carry credentials in URLs, and dnf .repo files may hold a password. Values of secret-looking names and URL
// credentials are replaced; everything a check reads (paths, hosts, suites) stays.
#include "bundle/redact.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <cctype>
#include <fstream>

namespace gpudoctor {

namespace {

namespace fs = std::filesystem;

bool is_config_file(const std::string& rel) { // relative to fs/, without a leading '/'
  std::string name = rel.substr(rel.find_last_of('/') + 1);
  for (const char* profile : {".bashrc", ".profile", ".bash_profile", ".bash_login", ".zshrc", ".zprofile"})
    if (name == profile && text::starts_with(rel, "home/")) return true;
  if (text::starts_with(rel, "root/") && name[0] == '.') return true;
  if (rel == "etc/profile" || rel == "etc/bash.bashrc" || rel == "etc/environment") return true;
  if (text::starts_with(rel, "etc/profile.d/")) return true;
  if (name == "pip.conf" || name == "daemon.json") return true;
  if (text::starts_with(rel, "etc/apt/sources.list") || text::starts_with(rel, "etc/yum.repos.d/"))
    return true;
  return false;
}

// "export HF_TOKEN=hf_abc" -> "export HF_TOKEN=<redacted>"; "password = x" (INI) likewise. The rest of the
// line keeps its URL credentials removed.
std::string redact_line(const std::string& line) {
  std::size_t p = line.find_first_not_of(" \t");
  if (p == std::string::npos) return line;
  for (const char* prefix : {"export ", "declare -x ", "readonly ", "local "})
    if (line.compare(p, std::string(prefix).size(), prefix) == 0) {
      p = line.find_first_not_of(" \t", p + std::string(prefix).size());
      break;
    }
  if (p != std::string::npos) {
    std::size_t end = p;
    while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_' ||
                                 line[end] == '-' || line[end] == '.'))
      ++end;
    std::size_t sep = line.find_first_not_of(" \t", end);
    bool assignment = end > p && sep != std::string::npos && (line[sep] == '=' || line[sep] == ':');
    if (assignment && is_secret_name(line.substr(p, end - p))) return line.substr(0, sep + 1) + "<redacted>";
  }
  return redact_url_credentials(line);
}

} // namespace

void redact_config_files(const fs::path& dir, RedactionLog& log) {
  fs::path root = dir / "fs";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || it->is_symlink(type_ec)) continue;
    std::string rel = it->path().lexically_relative(root).generic_string();
    if (!is_config_file(rel)) continue;
    std::string before = read_whole_file(it->path()).value_or(""), after;
    auto lines = text::split(before, '\n', true);
    for (std::size_t i = 0; i < lines.size(); ++i)
      after += redact_line(lines[i]) + (i + 1 < lines.size() ? "\n" : "");
    if (after == before) continue;
    std::ofstream(it->path(), std::ios::binary | std::ios::trunc) << after;
    log.redacted.push_back("file:/" + rel);
  }
}

} // namespace gpudoctor
