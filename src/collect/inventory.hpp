// The inventory collector: what of each vendor's stack is on the machine, file by file and package by
// package, read through the SystemView (so a snapshot gives the same lists as the live machine did). Run by
// collect_all only when given the stack tables (fix, migrate, bundle): `check` does not need it.
#pragma once

#include "facts/facts.hpp"
#include "facts/inventory.hpp"
#include "knowledge/knowledge.hpp"
#include "knowledge/stacks.hpp"
#include "system/system_view.hpp"

#include <string>

namespace gpudoctor {

// Whether a package belongs to `stack`: it matches one of its globs and no `keep` glob of any vendor.
bool vendor_package(const Stacks& stacks, const VendorStack& stack, const std::string& name);

Inventory take_inventory(SystemView& view, const Facts& facts, const Knowledge& kb, const Stacks& stacks);

} // namespace gpudoctor
