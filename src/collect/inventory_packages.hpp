// Internal to the inventory: the installed packages as a graph, and each vendor's purge set on it.
#pragma once

#include "collect/inventory.hpp"
#include "collect/pkg_graph.hpp"
#include "facts/facts.hpp"
#include "knowledge/stacks.hpp"
#include "system/system_view.hpp"

namespace gpudoctor {

// The machine's installed packages with their relations: dpkg status and apt's marks, or rpm's provides and
// requires (command key rpm-provides); empty when neither can be read. On dpkg machines the packages that
// may be a stack's (its globs, an origin by Maintainer) get where apt has their installed version from
// (command key apt-cache-policy), which names their origin before the Maintainer does.
PkgGraph read_package_graph(SystemView& view, const Facts& facts, const Knowledge& kb, const Stacks& stacks);

// Fills the package lists of `inv` for `stack`: what a purge removes, holds, what stays and why,
// replacements, orphans, version locks.
void read_stack_packages(SystemView& view, const Facts& facts, const Stacks& stacks, const VendorStack& stack,
                         const PkgGraph& graph, StackInventory& inv);

} // namespace gpudoctor
