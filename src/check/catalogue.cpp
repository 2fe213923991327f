#include "check/catalogue.hpp"

#include "util/embedded.hpp"
#include "util/file_text.hpp"

#include <map>

#include <yaml-cpp/yaml.h>

namespace gpudoctor {

namespace {

std::expected<std::string, std::string> data_file(const std::string& source_dir, const std::string& rel) {
  if (source_dir.empty()) {
    const auto& files = embedded_data_files();
    auto it = files.find(rel);
    if (it == files.end()) return std::unexpected(rel + " is not built into this gpudoctor");
    return it->second;
  }
  auto content = read_whole_file(source_dir + "/" + rel);
  if (!content) return std::unexpected("cannot read " + source_dir + "/" + rel);
  return *content;
}

std::string where(const std::string& file, const YAML::Node& node) {
  return file + ":" + std::to_string(node.Mark().line + 1);
}

std::expected<std::string, std::string> required(const std::string& file, const YAML::Node& row,
                                                 const char* key) {
  auto v = row[key];
  if (!v || !v.IsScalar() || v.as<std::string>().empty())
    return std::unexpected(where(file, row) + ": missing \"" + key + "\"");
  return v.as<std::string>();
}

std::string optional_text(const YAML::Node& row, const char* key) {
  auto v = row[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string{};
}

std::expected<void, std::string> load_checks(const std::string& file, const std::string& text,
                                             Catalogue& cat) {
  YAML::Node root = YAML::Load(text);
  auto checks = root["checks"];
  if (!checks || !checks.IsSequence()) return std::unexpected(file + ": no \"checks\" list");
  for (const auto& row : checks) {
    CatalogueEntry e;
    for (auto [key, sink] : {std::pair{"id", &e.id}, std::pair{"title", &e.title}, std::pair{"area", &e.area},
                             std::pair{"status", &e.fires_status}, std::pair{"what", &e.what},
                             std::pair{"why", &e.why}, std::pair{"fix", &e.fix}}) {
      auto v = required(file, row, key);
      if (!v) return std::unexpected(v.error());
      *sink = *v;
    }
    if (auto fixes = row["fixes"]; fixes && fixes.IsSequence())
      for (const auto& f : fixes)
        e.fixes.push_back(f.as<std::string>());
    if (cat.find(e.id)) return std::unexpected(where(file, row) + ": check " + e.id + " listed twice");
    cat.checks.push_back(std::move(e));
  }
  return {};
}

std::expected<void, std::string> load_fixes(const std::string& file, const std::string& text,
                                            Catalogue& cat) {
  YAML::Node root = YAML::Load(text);
  auto fixes = root["fixes"];
  if (!fixes || !fixes.IsSequence()) return std::unexpected(file + ": no \"fixes\" list");
  for (const auto& row : fixes) {
    FixEntry f;
    auto id = required(file, row, "id");
    if (!id) return std::unexpected(id.error());
    f.id = *id;
    f.title = optional_text(row, "title");
    f.description = optional_text(row, "description");
    cat.fixes.push_back(std::move(f));
  }
  return {};
}

} // namespace

const CatalogueEntry* Catalogue::find(const std::string& id) const {
  for (const auto& e : checks)
    if (e.id == id) return &e;
  return nullptr;
}

const FixEntry* Catalogue::find_fix(const std::string& id) const {
  for (const auto& f : fixes)
    if (f.id == id) return &f;
  return nullptr;
}

std::expected<Catalogue, std::string> load_catalogue(const std::string& source_dir) {
  Catalogue cat;
  const std::pair<const char*, decltype(&load_checks)> parts[] = {{"checks/catalogue.yaml", &load_checks},
                                                                  {"fixes/catalogue.yaml", &load_fixes}};
  for (const auto& [rel, loader] : parts) {
    auto text = data_file(source_dir, rel);
    if (!text) return std::unexpected(text.error());
    try {
      auto loaded = loader(rel, *text, cat);
      if (!loaded) return std::unexpected(loaded.error());
    } catch (const YAML::Exception& e) {
      return std::unexpected(std::string(rel) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  }
  return cat;
}

const std::vector<std::string>& area_order() {
  static const std::vector<std::string> order = {"hardware",    "drivers",     "toolkits",
                                                 "environment", "permissions", "python",
                                                 "packages",    "probes",      "tools"};
  return order;
}

std::string area_title(const std::string& area) {
  static const std::map<std::string, std::string> titles = {
      {"hardware", "Hardware"},
      {"drivers", "Kernel drivers"},
      {"toolkits", "Toolkits and libraries"},
      {"environment", "Environment"},
      {"permissions", "Permissions"},
      {"python", "Python frameworks"},
      {"packages", "Packages, repositories, containers"},
      {"probes", "GPU probes"},
      {"tools", "Vendor tools"}};
  auto it = titles.find(area);
  return it == titles.end() ? area : it->second;
}

} // namespace gpudoctor
