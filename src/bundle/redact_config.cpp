#include "bundle/redact_config.hpp"

#include "system/config_files.hpp"
#include "util/text.hpp"

#include <cctype>

namespace gpudoctor {

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t';
}
bool ini_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// The words of a line up to `count`, with where each starts and ends.
struct Word {
  std::size_t begin, end;
};
std::vector<Word> first_words(std::string_view line, std::size_t count) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (words.size() < count) {
    while (i < line.size() && blank(line[i]))
      ++i;
    if (i >= line.size()) break;
    std::size_t begin = i;
    while (i < line.size() && !blank(line[i]))
      ++i;
    words.push_back({begin, i});
  }
  return words;
}

// csh `setenv NAME value`, csh `set NAME = value`, fish `set -gx NAME value...`: the rest after NAME goes.
std::string shell_line(std::string_view line, const SecretNames& names) {
  auto words = first_words(line, 8);
  if (words.size() < 3) return std::string(line);
  auto word = [&](std::size_t k) { return line.substr(words[k].begin, words[k].end - words[k].begin); };
  std::size_t name = 1;
  if (word(0) == "set")
    while (name + 1 < words.size() && word(name)[0] == '-')
      ++name;
  else if (word(0) != "setenv")
    return std::string(line);
  if (name + 1 >= words.size() || !names.redact(word(name))) return std::string(line);
  return std::string(line.substr(0, words[name].end)) + " " + std::string(k_redacted);
}

// INI `name = value` or `name: value` with a secret's name: the value goes.
std::string ini_line(std::string_view line, const SecretNames& names) {
  std::size_t p = 0;
  while (p < line.size() && blank(line[p]))
    ++p;
  std::size_t end = p;
  while (end < line.size() && ini_name_char(line[end]))
    ++end;
  std::size_t sep = end;
  while (sep < line.size() && blank(line[sep]))
    ++sep;
  bool assignment = end > p && sep < line.size() && (line[sep] == '=' || line[sep] == ':');
  if (!assignment || !names.redact(line.substr(p, end - p))) return std::string(line);
  return std::string(line.substr(0, sep + 1)) + std::string(k_redacted);
}

bool is_argv(const Json& array) {
  if (array.empty()) return false;
  for (const auto& e : array)
    if (!e.is_string()) return false;
  return true;
}

} // namespace

std::optional<ConfigKind> config_kind(std::string_view rel) {
  // The configuration table's files by their format (system/config_files.hpp), then what else a bundle may
  // hold in those syntaxes.
  if (const ConfigFile* row = config_file_of(rel)) switch (row->format) {
    case ConfigFormat::json:
      return ConfigKind::json;
    case ConfigFormat::ini:
      return ConfigKind::ini;
    case ConfigFormat::shell:
    case ConfigFormat::pam_env:
    case ConfigFormat::nccl:
      return ConfigKind::shell;
    }
  std::string_view name = rel.substr(rel.find_last_of('/') + 1);
  if (text::ends_with(name, ".json")) return ConfigKind::json;
  for (std::string_view ini : {"pip.conf", "pip.ini", ".pypirc", ".condarc", ".npmrc"})
    if (name == ini) return ConfigKind::ini;
  if (text::ends_with(name, ".repo") || text::starts_with(rel, "etc/apt/sources.list") ||
      text::starts_with(rel, "etc/apt/auth.conf"))
    return ConfigKind::ini;
  // Other dotfiles (.envrc, a shell's files the table does not judge) wherever the home is, fish's files,
  // and whatever else a profile folder holds.
  if (name.starts_with('.') || text::ends_with(name, ".fish")) return ConfigKind::shell;
  if (config_folder_of(rel)) return ConfigKind::shell;
  return std::nullopt;
}

std::string redact_config_text(std::string_view content, ConfigKind kind, TextRedactor& redactor) {
  if (kind == ConfigKind::json) {
    auto doc = parse_json(content);
    if (!doc) return redactor.scrub(content, true);
    return redact_json(*doc, redactor) ? dump_json(*doc) + "\n" : std::string(content);
  }
  std::string lines;
  auto parts = text::split(content, '\n', true);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    lines += kind == ConfigKind::ini ? ini_line(parts[k], redactor.names())
                                     : shell_line(parts[k], redactor.names());
    if (k + 1 < parts.size()) lines += '\n';
  }
  return redactor.scrub(lines, true);
}

bool redact_json(Json& doc, TextRedactor& redactor) {
  bool changed = false;
  if (doc.is_object()) {
    Json out = Json::object();
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      const std::string& key = it.key();
      std::string new_key = redactor.shapes(key);
      changed = changed || new_key != key;
      bool secret = redactor.names().redact(key) && text::lower(key) != "key" && !it->is_null();
      if (secret && *it != Json(std::string(k_redacted))) {
        out[new_key] = k_redacted;
        changed = true;
        continue;
      }
      changed = redact_json(*it, redactor) || changed;
      out[new_key] = std::move(*it);
    }
    doc = std::move(out); // rebuilt in the same order, changed or not (its values were moved)
  } else if (doc.is_array() && is_argv(doc)) {
    std::vector<std::string> argv;
    for (const auto& e : doc)
      argv.push_back(e.get<std::string>());
    auto scrubbed = redactor.scrub_argv(argv);
    if (scrubbed != argv) {
      doc = scrubbed;
      changed = true;
    }
  } else if (doc.is_array()) {
    for (auto& e : doc)
      changed = redact_json(e, redactor) || changed;
  } else if (doc.is_string()) {
    std::string s = doc.get<std::string>(), scrubbed = redactor.scrub(s, true);
    if (scrubbed != s) {
      doc = scrubbed;
      changed = true;
    }
  }
  return changed;
}

} // namespace gpudoctor
