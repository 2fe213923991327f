// The installed packages as a dependency graph (dpkg's Depends/Pre-Depends/Provides, rpm's
// Requires/Provides), and the purge set of a vendor's stack computed on it: the stack's packages and
// everything of the stack that depends on them, never what a package outside the stack still needs (that is
// kept, and said why).
#pragma once

#include "parse/parsers_system.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpudoctor {

struct PkgNode {
  std::string name, version;
  std::string maintainer;        // dpkg's Maintainer (empty from rpm)
  std::string repository_origin; // who publishes the repository apt has the installed version from, or empty
  bool held = false;             // dpkg "hold" (apt-mark hold)
  bool auto_installed = false;   // apt installed it as a dependency
  std::vector<std::vector<std::string>> clauses; // each: the names (real or virtual) of its alternatives
  std::vector<std::string> provides;
};

class PkgGraph {
public:
  void add(PkgNode node);
  const std::map<std::string, PkgNode>& nodes() const { return m_nodes; }
  bool has(const std::string& name) const { return m_nodes.count(name) > 0; }
  // The installed packages that satisfy a name: the package of that name and those providing it.
  const std::vector<std::string>& satisfiers(const std::string& name) const;
  // The installed packages with a clause that `name` satisfies.
  const std::vector<std::string>& dependents(const std::string& name) const;

private:
  void index() const;
  std::map<std::string, PkgNode> m_nodes;
  mutable bool m_indexed = false;
  mutable std::map<std::string, std::vector<std::string>> m_satisfiers, m_dependents;
};

// From /var/lib/dpkg/status (installed packages only), apt's auto-installed marks and, where known, who
// publishes the repository of each installed version (package -> origin).
PkgGraph dpkg_graph(const std::vector<parse::DpkgRecord>& records,
                    const std::vector<std::string>& auto_installed,
                    const std::map<std::string, std::string>& repository_origins = {});
// From `rpm -qa` versions and the rpm-provides relations.
PkgGraph rpm_graph(const std::map<std::string, std::string>& installed,
                   const std::map<std::string, parse::RpmRelations>& relations);

struct PurgeRules {
  std::function<bool(const std::string&)> root;    // the stack's own packages (its globs, not kept)
  std::function<bool(const std::string&)> member;  // a dependent that belongs to the stack
  std::map<std::string, std::string> replacements; // stack package -> distribution package put in its place
};

struct PurgeSet {
  std::vector<std::string> packages; // to purge, sorted
  std::vector<std::string> held;     // of those, the held ones
  // Stack packages left installed: the package, and the package outside the stack that needs it.
  std::vector<std::pair<std::string, std::string>> kept;
  std::vector<std::string> replacements; // distribution packages installed in the same transaction
  std::vector<std::string> orphans;      // auto-installed packages nothing needs once the purge is done
};

PurgeSet purge_set(const PkgGraph& graph, const PurgeRules& rules);

} // namespace gpudoctor
