// The check catalogue (checks/catalogue.yaml): id, title, area and the text `gpudoctor explain` prints.
#pragma once

#include "engine/result.hpp"

#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct CatalogueEntry {
  std::string id;
  std::string title;
  std::string area;         // hardware, drivers, toolkits, environment, permissions, python, tools
  std::string fires_status; // the status when the problem is present
  std::string what, why, fix;
  std::vector<std::string> fixes;
  // What a warn or error result with no fix and no action of its own is told to do (`action: {step: ...}` or
  // `{command: ...}`: the catalogue's own text, never a machine's value).
  std::optional<Action> action;
  // The column of the per-GPU health grid (health_columns) its results about a GPU fill; "" for none.
  std::string health;
};

struct FixEntry {
  std::string id;
  std::string title;
  std::string description;
};

struct Catalogue {
  std::vector<CatalogueEntry> checks;
  std::vector<FixEntry> fixes;
  const CatalogueEntry* find(const std::string& id) const;
  const FixEntry* find_fix(const std::string& id) const;
};

// Loads checks/catalogue.yaml and fixes/catalogue.yaml (built in, or from `source_dir` when given).
std::expected<Catalogue, std::string> load_catalogue(const std::string& source_dir = {});

// Human name of an area, in report order.
std::string area_title(const std::string& area);
const std::vector<std::string>& area_order();

// The columns of the HTML page's per-GPU health grid (as DCGM's per-GPU pass/fail table), in order: the
// catalogue's `health:` value and the column's heading.
struct HealthColumn {
  std::string id, title;
};
const std::vector<HealthColumn>& health_columns();
// The position of the column `id` names in health_columns(); nothing for another id.
std::optional<std::size_t> health_column(std::string_view id);

} // namespace gpudoctor
