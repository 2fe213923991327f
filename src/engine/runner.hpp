// Runs the registered checks over facts; one failing check never stops the others.
#pragma once

#include "engine/catalogue.hpp"
#include "engine/check.hpp"

#include <string>
#include <vector>

namespace gpudoctor {

// Runs `table`'s checks; `only`: check ids to run (empty: all). Results come in the table's order, titles
// from the catalogue.
std::vector<Result> run_checks(const CheckContext& ctx, const Catalogue& cat, const CheckTable& table,
                               const std::vector<std::string>& only = {});

} // namespace gpudoctor
