#include "fleet/fleet.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace gpudoctor {

std::string absent_text(const std::string& group) {
  return group == "Environment" ? "(unset)" : "(none)";
}

std::size_t Fleet::drifting_rows() const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const FleetRow& r) { return r.drifts(); }));
}

std::size_t Fleet::nodes_with(Status s) const {
  auto i = static_cast<std::size_t>(s);
  return static_cast<std::size_t>(
      std::count_if(nodes.begin(), nodes.end(), [&](const FleetNode& n) { return n.counts[i] > 0; }));
}

// What FleetBuilder::Impl accumulates per drift row and per check (a named namespace: Impl holds them).
namespace fleet_accumulators {

struct RowAcc {
  int rank = 0;
  std::string group, name;
  std::unordered_map<std::string, std::vector<std::size_t>> values; // value -> input indexes
};

struct CheckAcc {
  std::string title;
  StatusCounts nodes{};
  std::vector<NodeHit> errors, warnings; // NodeHit::node holds the input index until finish()
};

} // namespace fleet_accumulators

using fleet_accumulators::CheckAcc;
using fleet_accumulators::RowAcc;

namespace {

// A check's worst status on one node, and the subjects that have it.
struct Worst {
  Status status = Status::skip;
  std::vector<std::string> subjects;
};

std::map<std::string, Worst> worst_by_check(const std::vector<NodeResult>& results) {
  std::map<std::string, Worst> out;
  for (const auto& r : results) {
    auto [it, inserted] = out.try_emplace(r.id, Worst{r.status, {r.subject}});
    if (inserted) continue;
    Worst& w = it->second;
    if (status_rank(r.status) < status_rank(w.status))
      w = Worst{r.status, {r.subject}};
    else if (r.status == w.status &&
             std::find(w.subjects.begin(), w.subjects.end(), r.subject) == w.subjects.end())
      w.subjects.push_back(r.subject); // one GPU's three Xids name it once
  }
  return out;
}

std::string file_name(const std::string& input) {
  std::string name = std::filesystem::path(input).filename().string();
  return name.empty() ? input : name;
}

} // namespace

struct FleetBuilder::Impl {
  std::vector<std::optional<FleetNode>> nodes;
  std::vector<std::string> gpu_ids;
  std::vector<std::optional<FleetInputError>> errors;
  std::unordered_map<std::string, RowAcc> rows;
  std::unordered_map<std::string, CheckAcc> checks;

  void add_properties(std::size_t index, const std::vector<NodeProperty>& props) {
    std::unordered_set<std::string> seen;
    for (const auto& p : props) {
      std::string key = p.group + '\x1f' + p.name;
      if (!seen.insert(key).second) continue; // a report naming one property twice counts once
      auto [it, inserted] = rows.try_emplace(std::move(key));
      if (inserted) it->second = RowAcc{p.rank, p.group, p.name, {}};
      it->second.values[p.value].push_back(index);
    }
  }

  void add_results(std::size_t index, const std::vector<NodeResult>& results) {
    std::unordered_map<std::string, std::string> titles;
    for (const auto& r : results)
      titles.try_emplace(r.id, r.title);
    for (auto& [id, worst] : worst_by_check(results)) {
      CheckAcc& c = checks[id];
      if (c.title.empty()) c.title = titles[id];
      ++c.nodes[static_cast<std::size_t>(worst.status)];
      if (worst.status == Status::error) c.errors.push_back({index, std::move(worst.subjects)});
      if (worst.status == Status::warn) c.warnings.push_back({index, std::move(worst.subjects)});
    }
  }

  std::vector<std::size_t> node_index() const {
    std::vector<std::size_t> out(nodes.size(), 0);
    std::size_t next = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]) out[i] = next++;
    return out;
  }

  static void name_nodes(std::vector<FleetNode>& list) {
    std::unordered_map<std::string, int> hosts, names;
    for (const auto& n : list)
      ++hosts[n.host];
    for (auto& n : list) {
      if (!n.host.empty() && hosts[n.host] == 1)
        n.name = n.host;
      else
        n.name = n.host.empty() ? file_name(n.input) : n.host + " (" + file_name(n.input) + ")";
      ++names[n.name];
    }
    for (auto& n : list) // one file name in two folders: the whole path tells them apart
      if (names[n.name] > 1) n.name = n.host.empty() ? n.input : n.host + " (" + n.input + ")";
  }

  FleetRow make_row(const RowAcc& acc, const std::vector<std::size_t>& index, std::size_t count) const {
    FleetRow row{acc.rank, acc.group, acc.name, {}};
    std::vector<bool> present(count, false);
    for (const auto& [value, inputs] : acc.values) {
      FleetValue v{value, false, {}};
      for (auto i : inputs) {
        v.nodes.push_back(index[i]);
        present[index[i]] = true;
      }
      std::sort(v.nodes.begin(), v.nodes.end());
      row.values.push_back(std::move(v));
    }
    FleetValue absent{"", true, {}};
    for (std::size_t n = 0; n < count; ++n)
      if (!present[n]) absent.nodes.push_back(n);
    if (!absent.nodes.empty()) row.values.push_back(std::move(absent));
    std::sort(row.values.begin(), row.values.end(), [](const FleetValue& a, const FleetValue& b) {
      return std::tuple(b.nodes.size(), a.absent, a.value) < std::tuple(a.nodes.size(), b.absent, b.value);
    });
    return row;
  }

  std::vector<FleetDuplicate> duplicates(const std::vector<FleetNode>& list,
                                         const std::vector<std::size_t>& inputs) const {
    std::map<std::string, std::vector<std::size_t>> by_host;
    for (std::size_t n = 0; n < list.size(); ++n)
      if (!list[n].host.empty()) by_host[list[n].host].push_back(n);
    std::vector<FleetDuplicate> out;
    for (auto& [host, members] : by_host) {
      if (members.size() < 2) continue;
      FleetDuplicate d{host, members, FleetDuplicate::Kind::unknown};
      std::set<std::string> ids;
      bool all_known = true;
      for (auto n : members) {
        const std::string& id = gpu_ids[inputs[n]];
        all_known = all_known && !id.empty();
        ids.insert(id);
      }
      if (all_known)
        d.kind =
            ids.size() == 1 ? FleetDuplicate::Kind::same_machine : FleetDuplicate::Kind::different_machines;
      out.push_back(std::move(d));
    }
    return out;
  }
};

FleetBuilder::FleetBuilder(std::size_t inputs) : m_impl(std::make_unique<Impl>()) {
  m_impl->nodes.resize(inputs);
  m_impl->gpu_ids.resize(inputs);
  m_impl->errors.resize(inputs);
}

FleetBuilder::~FleetBuilder() = default;

void FleetBuilder::add(std::size_t index, NodeReport&& node) {
  FleetNode n;
  n.host = node.host;
  n.input = node.input;
  n.origin = node.origin;
  n.tool_version = node.tool_version;
  n.counts = node.counts();
  for (const auto& p : node.properties)
    if (p.group == "GPUs" && p.name == "GPUs") n.gpus = p.value;
  m_impl->add_properties(index, node.properties);
  m_impl->add_results(index, node.results);
  m_impl->gpu_ids[index] = std::move(node.gpu_ids);
  m_impl->nodes[index] = std::move(n);
}

void FleetBuilder::unreadable(std::size_t index, std::string input, std::string error) {
  m_impl->errors[index] = FleetInputError{std::move(input), std::move(error)};
}

Fleet FleetBuilder::finish() {
  Impl& m = *m_impl;
  Fleet fleet;
  auto index = m.node_index();
  std::vector<std::size_t> input_of; // node -> input index
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i]) {
      fleet.nodes.push_back(std::move(*m.nodes[i]));
      input_of.push_back(i);
    }
    if (m.errors[i]) fleet.unreadable.push_back(std::move(*m.errors[i]));
  }
  Impl::name_nodes(fleet.nodes);
  for (auto& [key, acc] : m.rows)
    fleet.rows.push_back(m.make_row(acc, index, fleet.nodes.size()));
  std::sort(fleet.rows.begin(), fleet.rows.end(), [](const FleetRow& a, const FleetRow& b) {
    return std::tie(a.rank, a.group, a.name) < std::tie(b.rank, b.group, b.name);
  });
  for (auto& [id, acc] : m.checks) {
    FleetCheck c{id, acc.title, acc.nodes, 0, std::move(acc.errors), std::move(acc.warnings)};
    int ran = 0;
    for (int k : c.nodes)
      ran += k;
    c.not_run = static_cast<int>(fleet.nodes.size()) - ran;
    for (auto* hits : {&c.errors, &c.warnings}) {
      for (auto& h : *hits)
        h.node = index[h.node];
      std::sort(hits->begin(), hits->end(),
                [](const NodeHit& a, const NodeHit& b) { return a.node < b.node; });
    }
    fleet.checks.push_back(std::move(c));
  }
  std::sort(fleet.checks.begin(), fleet.checks.end(), [](const FleetCheck& a, const FleetCheck& b) {
    return std::tuple(b.errors.size(), b.warnings.size(), a.id) <
           std::tuple(a.errors.size(), a.warnings.size(), b.id);
  });
  fleet.duplicates = m.duplicates(fleet.nodes, input_of);
  return fleet;
}

} // namespace gpudoctor
