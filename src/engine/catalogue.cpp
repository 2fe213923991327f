#include "engine/catalogue.hpp"

#include "util/find_row.hpp"
#include "util/yaml_doc.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// The list of rows under `table`, the one key of the document.
std::vector<yaml::Node> rows(const yaml::Node& doc, const char* table) {
  yaml::Fields top(doc, {table});
  yaml::Node list = top[table];
  if (!list.is_list()) yaml::fail(top.node(), fmt::format("no \"{}\" list", table));
  return list.items();
}

// A check's `action`: one step or one command, given as the catalogue's text.
std::optional<Action> catalogue_action(const yaml::Fields& row) {
  if (!row.has("action")) return std::nullopt;
  yaml::Fields a(row["action"], {"step", "command"});
  if (a.has("step") == a.has("command")) row.bad("action", "needs exactly one of step and command");
  if (a.has("step")) return Action::step(a.text("step"));
  return Action{Action::Kind::command, a.text("command")};
}

void load_checks(const yaml::Node& doc, Catalogue& cat) {
  for (const auto& row : rows(doc, "checks")) {
    yaml::Fields r(row, {"id", "title", "area", "status", "what", "why", "fix", "fixes", "action", "health"});
    CatalogueEntry e{r.text("id"),        r.text("title"),    r.text("area"), r.text("status"),
                     r.text("what"),      r.text("why"),      r.text("fix"),  r.list_if("fixes"),
                     catalogue_action(r), r.text_or("health")};
    if (!e.health.empty() && !health_column(e.health))
      r.bad("health",
            "is no column of the health grid (driver, memory, pcie, kernel-log, links, clocks, probes)");
    if (cat.find(e.id)) yaml::fail(row, fmt::format("check {} listed twice", e.id));
    cat.checks.push_back(std::move(e));
  }
}

void load_fixes(const yaml::Node& doc, Catalogue& cat) {
  for (const auto& row : rows(doc, "fixes")) {
    yaml::Fields r(row, {"id", "title", "description"});
    FixEntry f{r.text("id"), r.text_or("title"), r.text_or("description")};
    if (cat.find_fix(f.id)) yaml::fail(row, fmt::format("fix {} listed twice", f.id));
    cat.fixes.push_back(std::move(f));
  }
}

} // namespace

const CatalogueEntry* Catalogue::find(const std::string& id) const {
  return find_row(checks, id, &CatalogueEntry::id);
}

const FixEntry* Catalogue::find_fix(const std::string& id) const {
  return find_row(fixes, id, &FixEntry::id);
}

std::expected<Catalogue, std::string> load_catalogue(const std::string& source_dir) {
  Catalogue cat;
  struct Part {
    const char* folder;
    void (*load)(const yaml::Node&, Catalogue&);
  };
  for (const auto& [folder, loader] : {Part{"checks", &load_checks}, Part{"fixes", &load_fixes}}) {
    std::string dir = source_dir.empty() ? std::string() : fmt::format("{}/{}", source_dir, folder);
    auto doc = yaml::parse_data_file(folder, dir, "catalogue.yaml");
    if (!doc) return std::unexpected(doc.error());
    auto loaded = yaml::guarded(doc->file(), [&] { loader(*doc, cat); });
    if (!loaded) return std::unexpected(loaded.error());
  }
  return cat;
}

const std::vector<HealthColumn>& health_columns() {
  static const std::vector<HealthColumn> columns = {
      {"driver", "Driver"}, {"memory", "Memory / ECC"}, {"pcie", "PCIe"},    {"kernel-log", "Kernel log"},
      {"links", "Links"},   {"clocks", "Clocks"},       {"probes", "Probes"}};
  return columns;
}

std::optional<std::size_t> health_column(std::string_view id) {
  const auto& columns = health_columns();
  auto it = std::find_if(columns.begin(), columns.end(), [&](const HealthColumn& c) { return c.id == id; });
  if (it == columns.end()) return std::nullopt;
  return static_cast<std::size_t>(it - columns.begin());
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
