// What a purge of a vendor's stack removes, computed on the installed dependency graph (pkg_graph.cpp) with
// the rules of fixes/stacks.yaml: the vendor's packages (its globs, not kept), and what depends on them that
// is the vendor's too (matched by a glob, or depending directly on a core package such as rocm-core).
#include "collect/inventory_packages.hpp"

#include "parse/parsers_system.hpp"
#include "system/commands_recorded.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <functional>

namespace gpudoctor {

namespace {

bool kept_by_any(const Stacks& stacks, const std::string& name) {
  return std::any_of(stacks.vendors.begin(), stacks.vendors.end(),
                     [&](const VendorStack& v) { return text::matches_any_glob(v.keep, name); });
}

// A package that depends directly on one of the stack's core packages (every ROCm package on rocm-core).
bool depends_on_core(const PkgGraph& graph, const VendorStack& stack, const std::string& name) {
  if (stack.core.empty()) return false;
  const auto& node = graph.nodes().at(name);
  return std::any_of(node.clauses.begin(), node.clauses.end(), [&](const auto& clause) {
    return std::any_of(clause.begin(), clause.end(),
                       [&](const std::string& alt) { return text::matches_any_glob(stack.core, alt); });
  });
}

// Who built an installed package: "distribution", a vendor, or empty. The repository apt has its installed
// version from first (origin_of_hosts, at the graph's making), else its Maintainer and Version
// (package_origins): a snapshot without apt-cache-policy, a version no repository has any more, a mirror.
std::string origin_of(const Stacks& stacks, const PkgGraph& graph, const std::string& name) {
  auto it = graph.nodes().find(name);
  if (it == graph.nodes().end()) return {};
  const PkgNode& node = it->second;
  return !node.repository_origin.empty() ? node.repository_origin
                                         : stacks.package_origin(node.maintainer, node.version);
}

// Who publishes the first of a package's repositories (apt's order) that is known: a GPU vendor
// (checks/knowledge/repos.yaml vendor_repos) or the distribution (fixes/stacks.yaml repository_origins).
std::string origin_of_hosts(const Knowledge& kb, const Stacks& stacks,
                            const std::vector<std::string>& hosts) {
  for (const auto& host : hosts) {
    if (auto repo = kb.vendor_repo(host); repo && (repo->vendor == "amd" || repo->vendor == "nvidia"))
      return repo->vendor;
    if (std::string origin = stacks.repository_origin(host); !origin.empty()) return origin;
  }
  return {};
}

// The installed packages apt's origin is asked for: those a stack's globs name or whose Maintainer names an
// origin (the rest is never a stack's). Past the limit none: the argv stays bounded, Maintainer decides.
std::vector<std::string> origin_candidates(const Stacks& stacks,
                                           const std::vector<parse::DpkgRecord>& records) {
  constexpr std::size_t k_max_names = 4000;
  std::vector<std::string> names;
  for (const auto& r : records) {
    if (!r.installed()) continue;
    bool named = std::any_of(stacks.vendors.begin(), stacks.vendors.end(), [&](const VendorStack& v) {
      return text::matches_any_glob(v.packages, r.name);
    });
    if (named || !stacks.package_origin(r.maintainer, r.version).empty()) names.push_back(r.name);
  }
  if (names.size() > k_max_names) names.clear();
  return names;
}

// A package of the stack: named by its globs (not kept), or built by the vendor's packaging team (its
// Maintainer: NVIDIA's CUDA libraries no glob names, libnvfatbin, libnvvm).
bool stack_package(const Stacks& stacks, const VendorStack& stack, const PkgGraph& graph,
                   const std::string& name) {
  return vendor_package(stacks, stack, name) ||
         (!kept_by_any(stacks, name) && origin_of(stacks, graph, name) == stack.vendor);
}

// The purge rules of a stack on the graph: its own packages, and the dependents that are the stack's too (its
// packages, or depending directly on a core package). `only`, when given, narrows both (the distribution's
// builds).
PurgeRules stack_rules(const Stacks& stacks, const VendorStack& stack, const PkgGraph& graph,
                       std::function<bool(const std::string&)> only = {}) {
  PurgeRules rules;
  rules.root = [&stacks, &stack, &graph, only](const std::string& name) {
    return (!only || only(name)) && stack_package(stacks, stack, graph, name);
  };
  rules.member = [&stacks, &stack, &graph, only](const std::string& name) {
    return (!only || only(name)) && (stack_package(stacks, stack, graph, name) ||
                                     (!kept_by_any(stacks, name) && depends_on_core(graph, stack, name)));
  };
  return rules;
}

// The distribution's builds of the stack an install of the vendor's replaces, on the same graph: those a
// package outside them needs are kept, as a purge keeps them.
void read_distribution_packages(const Stacks& stacks, const VendorStack& stack, const PkgGraph& graph,
                                StackInventory& inv) {
  PurgeSet set = purge_set(graph, stack_rules(stacks, stack, graph, [&](const std::string& name) {
                             return origin_of(stacks, graph, name) == "distribution";
                           }));
  inv.distribution = set.packages;
  inv.distribution_kept = set.kept;
}

} // namespace

PkgGraph read_package_graph(SystemView& view, const Facts& facts, const Knowledge& kb, const Stacks& stacks) {
  if (facts.packages.manager == "dpkg") {
    auto status = view.read_file("/var/lib/dpkg/status");
    auto marks = view.read_file("/var/lib/apt/extended_states");
    auto records = parse::dpkg_records(status ? *status : "");
    std::map<std::string, std::string> origins;
    if (auto names = origin_candidates(stacks, records); !names.empty()) {
      CommandSpec spec = keyed_command_spec(KeyedCommand::apt_cache_policy, std::chrono::milliseconds(30000));
      spec.argv.insert(spec.argv.end(), names.begin(), names.end());
      if (auto r = view.run(spec); r.ok())
        for (const auto& [name, hosts] : parse::apt_policy_sources(r.out))
          if (std::string origin = origin_of_hosts(kb, stacks, hosts); !origin.empty())
            origins[name] = origin;
    }
    return dpkg_graph(records, parse::apt_auto_installed(marks ? *marks : ""), origins);
  }
  if (facts.packages.manager == "rpm") {
    CommandSpec spec = keyed_command_spec(KeyedCommand::rpm_provides, std::chrono::milliseconds(30000));
    auto r = view.run(spec);
    return rpm_graph(facts.packages.installed, parse::rpm_relations(r.ok() ? r.out : ""));
  }
  return {};
}

void read_stack_packages(SystemView& view, const Facts& facts, const Stacks& stacks, const VendorStack& stack,
                         const PkgGraph& graph, StackInventory& inv) {
  PurgeRules rules = stack_rules(stacks, stack, graph);
  std::string family = facts.packages.manager == "rpm" ? "rhel" : "debian";
  for (const auto& r : stacks.replacements)
    if (r.vendor == stack.vendor && r.family == family) rules.replacements[r.package] = r.distribution;
  PurgeSet set = purge_set(graph, rules);
  inv.packages = set.packages;
  inv.held = set.held;
  inv.kept = set.kept;
  inv.replacements = set.replacements;
  for (const auto& o : set.orphans)
    if (!kept_by_any(stacks, o)) inv.orphans.push_back(o);
  if (auto locks = view.read_file("/etc/dnf/plugins/versionlock.list"))
    for (const auto& entry : parse::dnf_versionlock(*locks))
      if (std::binary_search(inv.packages.begin(), inv.packages.end(), parse::versionlock_name(entry)))
        inv.versionlocks.push_back(entry);
  read_distribution_packages(stacks, stack, graph, inv);
}

} // namespace gpudoctor
