#include "fleet/report_diff.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// Groups only some inputs can have (see report_diff.hpp).
bool side_group(const std::string& group) {
  return group.starts_with("System packages") || group == "Bundle";
}

using Key = std::tuple<int, std::string, std::string>; // rank, group, name: the table order

std::map<Key, std::string> by_key(const NodeReport& node) {
  std::map<Key, std::string> out;
  for (const auto& p : node.properties)
    out.try_emplace(Key{p.rank, p.group, p.name}, p.value);
  return out;
}

std::set<std::string> groups(const NodeReport& node) {
  std::set<std::string> out;
  for (const auto& p : node.properties)
    out.insert(p.group);
  return out;
}

// Calls fn(key, before, after) for each key of either map, in key order; a side without the key is null.
template <class Map, class Fn> void side_by_side(const Map& a, const Map& b, Fn fn) {
  std::set<typename Map::key_type> keys;
  for (const auto& [k, v] : a)
    keys.insert(k);
  for (const auto& [k, v] : b)
    keys.insert(k);
  for (const auto& k : keys) {
    auto ia = a.find(k), ib = b.find(k);
    fn(k, ia == a.end() ? nullptr : &ia->second, ib == b.end() ? nullptr : &ib->second);
  }
}

std::vector<PropertyChange> diff_properties(const NodeReport& before, const NodeReport& after) {
  auto ga = groups(before), gb = groups(after);
  std::vector<PropertyChange> out;
  side_by_side(by_key(before), by_key(after), [&](const Key& k, const std::string* a, const std::string* b) {
    const auto& [rank, group, name] = k;
    if (side_group(group) && !(ga.contains(group) && gb.contains(group))) return;
    std::optional<std::string> va, vb;
    if (a) va = *a;
    if (b) vb = *b;
    if (va != vb) out.push_back({rank, group, name, va, vb});
  });
  return out;
}

using ResultKey = std::tuple<std::string, std::string, std::string>; // id, subject, key

std::map<ResultKey, const NodeResult*> results_by_key(const NodeReport& node) {
  std::map<ResultKey, const NodeResult*> out;
  for (const auto& r : node.results)
    out.try_emplace(ResultKey{r.id, r.subject, r.key}, &r);
  return out;
}

std::vector<ResultChange> diff_results(const NodeReport& before, const NodeReport& after) {
  std::vector<ResultChange> out;
  using Found = const NodeResult*;
  side_by_side(results_by_key(before), results_by_key(after),
               [&](const ResultKey& k, const Found* a, const Found* b) {
                 const NodeResult* ra = a ? *a : nullptr;
                 const NodeResult* rb = b ? *b : nullptr;
                 if (ra && rb && ra->status == rb->status) return;
                 const NodeResult* shown = rb ? rb : ra;
                 ResultChange c{std::get<0>(k), std::get<1>(k), std::get<2>(k), shown->title,
                                std::nullopt,   std::nullopt,   shown->message};
                 if (ra) c.before = ra->status;
                 if (rb) c.after = rb->status;
                 out.push_back(std::move(c));
               });
  // What is wrong now first: an after-status of error, then warn, ..., then results that are gone.
  auto rank = [](const ResultChange& c) { return c.after ? status_rank(*c.after) : 5; };
  std::stable_sort(out.begin(), out.end(),
                   [&](const ResultChange& x, const ResultChange& y) { return rank(x) < rank(y); });
  return out;
}

DiffSide side(const NodeReport& n) {
  return {n.input, n.origin, n.host, n.tool_version, n.counts()};
}

std::set<std::string> split_ids(const std::string& joined) {
  std::set<std::string> out;
  for (const auto& id : text::split(joined, ','))
    if (!id.empty()) out.insert(id);
  return out;
}

} // namespace

std::optional<std::string> machine_mismatch(const NodeReport& before, const NodeReport& after) {
  if (before.host != after.host) return fmt::format("host \"{}\" and host \"{}\"", before.host, after.host);
  auto a = split_ids(before.gpu_ids), b = split_ids(after.gpu_ids);
  if (a.empty() || b.empty()) return std::nullopt;
  for (const auto& id : a)
    if (b.contains(id)) return std::nullopt;
  return fmt::format("host \"{}\" twice, but no NVIDIA GPU in common ({} and {} GPU UUIDs)", before.host,
                     a.size(), b.size());
}

ReportDiff diff_reports(const NodeReport& before, const NodeReport& after) {
  ReportDiff d{side(before), side(after), diff_properties(before, after), diff_results(before, after), {}};
  if (before.tool_version != after.tool_version)
    d.notes.push_back(fmt::format("judged by gpudoctor {} and {}: a result may differ because the checks did",
                                  before.tool_version, after.tool_version));
  if (!before.gpu_ids.empty() && !after.gpu_ids.empty() && before.gpu_ids != after.gpu_ids)
    d.notes.push_back(
        "the NVIDIA GPU UUIDs differ: GPUs were replaced, or these are two machines of one name");
  return d;
}

} // namespace gpudoctor
