// Redaction of every recorded file: configuration files by the rules of their kind (ML users keep tokens in
// ~/.bashrc, private indexes carry credentials in URLs, dnf .repo files may hold a password, daemon.json
// proxies and registry logins), JSON by its keys, and all other text (tool outputs, listings, logs) for
// credentials in syntax and secret shapes. File and folder names and link targets lose secret shapes.
#include "bundle/redact.hpp"
#include "bundle/redact_config.hpp"
#include "bundle/tree_rewrite.hpp"
#include "system/snapshot.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <map>
#include <set>

namespace gpudoctor {

namespace {

namespace fs = std::filesystem;

struct RecordedConfig {
  ConfigKind kind;
  std::vector<std::string> names; // the machine paths it was read as: its own and those of links to it
};

// The configuration files below fs/, keyed by their place relative to the snapshot ("fs/home/a/.bashrc").
// A link with a configuration file's name (stow: ~/.bashrc -> dotfiles/bash/bashrc) makes its target one.
std::map<std::string, RecordedConfig> recorded_configs(const fs::path& dir) {
  std::map<std::string, RecordedConfig> out;
  fs::path root = dir / "fs";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string rel = it->path().lexically_relative(root).generic_string();
    auto kind = config_kind(rel);
    if (!kind) continue;
    fs::path real = it->path();
    if (it->is_symlink(ec)) {
      auto resolved = snapshot::resolve_inside(root, "/" + rel, true);
      if (!resolved || !fs::is_regular_file(fs::symlink_status(*resolved, ec))) continue;
      real = *resolved;
    } else if (!it->is_regular_file(ec)) {
      continue;
    }
    std::string key = real.lexically_relative(dir).generic_string();
    auto own = config_kind(real.lexically_relative(root).generic_string());
    auto [entry, added] = out.try_emplace(key, RecordedConfig{own.value_or(*kind), {}});
    entry->second.names.push_back("/" + rel);
  }
  return out;
}

bool looks_like_json(const std::string& rel, std::string_view content) {
  if (text::ends_with(rel, ".json")) return true;
  std::size_t first = content.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (content[first] == '{' || content[first] == '[');
}

std::string redact_other(const std::string& rel, std::string_view content, TextRedactor& redactor,
                         bool assignments) {
  if (looks_like_json(rel, content))
    if (auto doc = parse_json(content))
      return redact_json(*doc, redactor) ? dump_json(*doc) : std::string(content);
  return redactor.scrub(content, assignments);
}

// The recorded kernel logs (relative paths of their outputs). The kernel's messages repeat the kernel command
// line and module parameters, written as NAME=value (luks.api_key=...): they are redacted as assignments,
// like configuration text.
std::set<std::string> kernel_log_outputs(const fs::path& dir) {
  std::set<std::string> out;
  auto doc = parse_json(read_whole_file(dir / "commands.json").value_or(""));
  if (!doc || !doc->is_array()) return out;
  for (const auto& entry : *doc) {
    if (!entry.is_object()) continue;
    std::string key = entry.value("key", "");
    if (key != "dmesg" && key != "journal-kernel-previous") continue;
    for (const char* stream : {"stdout", "stderr"})
      if (entry.contains(stream) && entry[stream].is_string()) out.insert(entry[stream].get<std::string>());
  }
  return out;
}

} // namespace

void redact_recorded_files(const fs::path& dir, TextRedactor& redactor, RedactionLog& log) {
  auto configs = recorded_configs(dir);
  auto kernel_logs = kernel_log_outputs(dir);
  TreeRewrite rewrite;
  rewrite.content = [&](const std::string& rel, std::string_view content) -> std::optional<std::string> {
    auto config = configs.find(rel);
    std::string out = config != configs.end()
                          ? redact_config_text(content, config->second.kind, redactor)
                          : redact_other(rel, content, redactor, kernel_logs.count(rel) > 0);
    if (out == content) return std::nullopt;
    if (config == configs.end()) {
      log.redacted.push_back("file:" + (text::starts_with(rel, "fs/") ? rel.substr(2) : rel));
      return out;
    }
    std::string own = rel.substr(2);
    log.redacted.push_back("file:" + own);
    for (const auto& name : config->second.names)
      if (name != own) log.redacted.push_back("file:" + name);
    return out;
  };
  rewrite.name = [&](const std::string& name) { return redactor.shapes(name); };
  auto rewritten = rewrite_tree(dir, rewrite, {"env.json", "identity.json", "manifest.json"});
  log.failed.insert(log.failed.end(), rewritten.failed.begin(), rewritten.failed.end());
}

} // namespace gpudoctor
