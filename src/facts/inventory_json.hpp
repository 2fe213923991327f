// The fix inventory as the report's facts.inventory (docs/snapshot.md, "facts.inventory"): present only where
// it was taken (fix, migrate, bundle), so a bundle's report.json holds what fix and migrate plan with.
#pragma once

#include "facts/inventory.hpp"
#include "util/json.hpp"

namespace gpudoctor {

Json inventory_to_json(const Inventory& inventory);

} // namespace gpudoctor
