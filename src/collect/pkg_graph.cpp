// The purge set: a fixpoint over the reverse dependencies. A package whose every way to satisfy one of its
// clauses is being removed breaks; a broken package of the stack is removed too, a broken package outside it
// (Ubuntu's libucx0 needing the distribution's libamdhip64-5) keeps what it needs, and the computation starts
// again without those. Replacements (the distribution's Mesa for AMD's) satisfy clauses, as apt would see
// them installed in the same transaction.
#include "collect/pkg_graph.hpp"

#include <algorithm>

namespace gpudoctor {

void PkgGraph::add(PkgNode node) {
  m_indexed = false;
  std::string name = node.name;
  m_nodes[name] = std::move(node);
}

void PkgGraph::index() const {
  if (m_indexed) return;
  m_satisfiers.clear();
  m_dependents.clear();
  for (const auto& [name, node] : m_nodes) {
    m_satisfiers[name].push_back(name);
    for (const auto& p : node.provides)
      if (p != name) m_satisfiers[p].push_back(name);
  }
  for (const auto& [name, node] : m_nodes) {
    std::set<std::string> on;
    for (const auto& clause : node.clauses)
      for (const auto& alt : clause)
        if (auto it = m_satisfiers.find(alt); it != m_satisfiers.end())
          on.insert(it->second.begin(), it->second.end());
    for (const auto& dep : on)
      if (dep != name) m_dependents[dep].push_back(name);
  }
  m_indexed = true;
}

const std::vector<std::string>& PkgGraph::satisfiers(const std::string& name) const {
  static const std::vector<std::string> none;
  index();
  auto it = m_satisfiers.find(name);
  return it == m_satisfiers.end() ? none : it->second;
}

const std::vector<std::string>& PkgGraph::dependents(const std::string& name) const {
  static const std::vector<std::string> none;
  index();
  auto it = m_dependents.find(name);
  return it == m_dependents.end() ? none : it->second;
}

PkgGraph dpkg_graph(const std::vector<parse::DpkgRecord>& records,
                    const std::vector<std::string>& auto_installed,
                    const std::map<std::string, std::string>& repository_origins) {
  std::set<std::string> automatic(auto_installed.begin(), auto_installed.end());
  PkgGraph g;
  for (const auto& r : records) {
    if (!r.installed()) continue;
    auto origin = repository_origins.find(r.name);
    PkgNode n{r.name,       r.version,
              r.maintainer, origin == repository_origins.end() ? std::string() : origin->second,
              r.held(),     automatic.count(r.name) > 0,
              r.clauses,    r.provides};
    g.add(std::move(n));
  }
  return g;
}

PkgGraph rpm_graph(const std::map<std::string, std::string>& installed,
                   const std::map<std::string, parse::RpmRelations>& relations) {
  PkgGraph g;
  for (const auto& [name, version] : installed) {
    PkgNode n;
    n.name = name;
    n.version = version;
    if (auto it = relations.find(name); it != relations.end()) {
      n.provides = it->second.provides;
      for (const auto& req : it->second.requires_)
        n.clauses.push_back({req});
    }
    g.add(std::move(n));
  }
  return g;
}

namespace {

using Set = std::set<std::string>;

class Solver {
public:
  Solver(const PkgGraph& g, const PurgeRules& r) : m_g(g), m_r(r) {}

  PurgeSet solve() {
    for (int round = 0; round < 1000; ++round) {
      Set broken_outside;
      closure(broken_outside);
      if (broken_outside.empty()) break;
      for (const auto& outside : broken_outside)
        keep_needs(outside, outside);
    }
    return result();
  }

private:
  // Whether a clause of `name` loses every installed satisfier (and no replacement comes in their place).
  const std::vector<std::string>* broken_clause(const PkgNode& node) const {
    for (const auto& clause : node.clauses) {
      bool any_installed = false, any_left = false;
      for (const auto& alt : clause) {
        if (m_incoming.count(alt)) any_left = true;
        for (const auto& s : m_g.satisfiers(alt)) {
          any_installed = true;
          if (!m_removed.count(s)) any_left = true;
        }
      }
      if (any_installed && !any_left) return &clause;
    }
    return nullptr;
  }

  // The removal closure from the roots, with the kept packages fixed; outside packages that break are
  // collected instead of removed.
  void closure(Set& broken_outside) {
    m_removed.clear();
    m_incoming.clear();
    std::vector<std::string> queue;
    for (const auto& [name, node] : m_g.nodes())
      if (m_r.root(name) && !m_kept.count(name)) mark(name, queue);
    while (!queue.empty()) {
      std::string gone = queue.back();
      queue.pop_back();
      for (const auto& dep : m_g.dependents(gone)) {
        if (m_removed.count(dep)) continue;
        const PkgNode& node = m_g.nodes().at(dep);
        if (!broken_clause(node)) continue;
        if (m_r.member(dep) && !m_kept.count(dep))
          mark(dep, queue);
        else
          broken_outside.insert(dep);
      }
    }
    // A replacement may have come in after an outside package was judged broken: judge those again.
    for (auto it = broken_outside.begin(); it != broken_outside.end();)
      it = broken_clause(m_g.nodes().at(*it)) ? std::next(it) : broken_outside.erase(it);
  }

  void mark(const std::string& name, std::vector<std::string>& queue) {
    m_removed.insert(name);
    queue.push_back(name);
    if (auto it = m_r.replacements.find(name); it != m_r.replacements.end() && !m_g.has(it->second))
      m_incoming.insert(it->second);
  }

  // Keeps what `name` needs among the removed packages (the first satisfier of each clause it would lose),
  // and what those need in turn.
  void keep_needs(const std::string& name, const std::string& because) {
    const PkgNode& node = m_g.nodes().at(name);
    while (const auto* clause = broken_clause(node)) {
      const std::string* pick = nullptr;
      for (const auto& alt : *clause)
        for (const auto& s : m_g.satisfiers(alt))
          if (!pick && m_removed.count(s)) pick = &s;
      if (!pick) return;
      std::string keep = *pick;
      m_removed.erase(keep);
      if (m_kept.emplace(keep, because).second) keep_needs(keep, because);
    }
  }

  PurgeSet result() const {
    PurgeSet out;
    out.packages.assign(m_removed.begin(), m_removed.end());
    for (const auto& name : out.packages)
      if (m_g.nodes().at(name).held) out.held.push_back(name);
    for (const auto& [name, because] : m_kept)
      if (m_r.root(name) || m_r.member(name)) out.kept.emplace_back(name, because);
    out.replacements.assign(m_incoming.begin(), m_incoming.end());
    out.orphans = orphans();
    return out;
  }

  // Auto-installed packages whose every dependent goes (apt would offer to autoremove them).
  std::vector<std::string> orphans() const {
    Set gone = m_removed, found;
    bool more = true;
    while (more) {
      more = false;
      for (const auto& [name, node] : m_g.nodes()) {
        if (!node.auto_installed || gone.count(name) || node.held) continue;
        const auto& deps = m_g.dependents(name);
        bool needed_by_gone = false, needed_by_staying = false;
        for (const auto& d : deps)
          (gone.count(d) ? needed_by_gone : needed_by_staying) = true;
        if (needed_by_gone && !needed_by_staying) {
          gone.insert(name);
          found.insert(name);
          more = true;
        }
      }
    }
    return {found.begin(), found.end()};
  }

  const PkgGraph& m_g;
  const PurgeRules& m_r;
  Set m_removed, m_incoming;
  std::map<std::string, std::string> m_kept; // kept package -> the outside package that needs it
};

} // namespace

PurgeSet purge_set(const PkgGraph& graph, const PurgeRules& rules) {
  return Solver(graph, rules).solve();
}

} // namespace gpudoctor
