#include "fix/yaml_fields.hpp"

#include "util/embedded.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>

namespace gpudoctor::fix {

Fields::Fields(std::string file, const YAML::Node& node, const std::vector<std::string>& allowed)
    : m_file(std::move(file)), m_node(node) {
  if (!node.IsMap()) fail(node, "expected a mapping of field: value");
  for (const auto& kv : node) {
    std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(kv.first, "unknown field \"" + key + "\"");
  }
}

std::string Fields::where(const YAML::Node& at) const {
  if (!at.IsDefined() || at.Mark().is_null()) return m_file;
  return m_file + ":" + std::to_string(at.Mark().line + 1);
}

void Fields::fail(const YAML::Node& at, const std::string& message) const {
  throw DataError{where(at.IsDefined() ? at : m_node) + ": " + message};
}

bool Fields::has(const char* key) const {
  return m_node[key].IsDefined() && !m_node[key].IsNull();
}

std::string Fields::text(const char* key) const {
  if (!has(key)) fail(m_node, std::string("missing \"") + key + "\"");
  const YAML::Node v = m_node[key];
  if (!v.IsScalar() || text::trim(v.Scalar()).empty())
    fail(v, std::string("\"") + key + "\" must be a non-empty text");
  return v.Scalar();
}

std::string Fields::text_or(const char* key, std::string fallback) const {
  return has(key) ? text(key) : std::move(fallback);
}

std::vector<std::string> Fields::list(const char* key) const {
  std::vector<std::string> out;
  if (!has(key)) return out;
  const YAML::Node v = m_node[key];
  if (v.IsScalar()) return {v.Scalar()};
  if (!v.IsSequence()) fail(v, std::string("\"") + key + "\" must be a list");
  for (const auto& item : v) {
    if (!item.IsScalar()) fail(item, std::string("\"") + key + "\" must list texts");
    out.push_back(item.Scalar());
  }
  return out;
}

bool Fields::flag(const char* key) const {
  if (!has(key)) return false;
  std::string s = text(key);
  if (s != "true" && s != "false") fail(m_node[key], std::string("\"") + key + "\" must be true or false");
  return s == "true";
}

std::string read_data_file(const std::string& dir, const std::string& rel) {
  if (dir.empty()) {
    const auto& files = embedded_data_files();
    auto it = files.find(rel);
    if (it == files.end()) throw DataError{rel + " is not built into this gpudoctor"};
    return it->second;
  }
  auto content = read_whole_file(std::filesystem::path(dir) / rel);
  if (!content) throw DataError{"cannot read " + dir + "/" + rel};
  return *content;
}

std::vector<std::string> list_data_files(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (dir.empty()) {
    for (const auto& [rel, content] : embedded_data_files())
      if (text::starts_with(rel, "fixes/") && text::ends_with(rel, suffix)) out.push_back(rel);
  } else {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(std::filesystem::path(dir) / "fixes", ec), end;
         !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (text::ends_with(name, suffix)) out.push_back("fixes/" + name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

YAML::Node parse_yaml(const std::string& rel, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw DataError{rel + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
}

} // namespace gpudoctor::fix
