// Package relations: dpkg's status records with their Depends/Provides, apt's auto-installed marks, dnf's
// version locks and rpm's provides/requires. Each is a linear scan that skips what it cannot read.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"

#include <algorithm>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_records = 1'000'000;

// "libc6 (>= 2.38), libamdhip64-5 | foo:any" -> {{libc6}, {libamdhip64-5, foo}}
void add_clauses(std::string_view field, std::vector<std::vector<std::string>>& out) {
  std::size_t start = 0;
  while (start <= field.size()) {
    std::size_t comma = field.find(',', start);
    if (comma == std::string_view::npos) comma = field.size();
    std::string_view clause = field.substr(start, comma - start);
    std::vector<std::string> alternatives;
    std::size_t a = 0;
    while (a <= clause.size()) {
      std::size_t bar = clause.find('|', a);
      if (bar == std::string_view::npos) bar = clause.size();
      std::string_view item = detail::trim_view(clause.substr(a, bar - a));
      item = item.substr(0, item.find_first_of(" \t(:["));
      if (!item.empty()) alternatives.emplace_back(item);
      a = bar + 1;
    }
    if (!alternatives.empty()) out.push_back(std::move(alternatives));
    start = comma + 1;
  }
}

// "Status: hold ok installed" -> want "hold", flag "ok", status "installed".
void split_status(std::string_view value, DpkgRecord& r) {
  std::size_t pos = 0;
  std::string_view want = detail::next_token(value, pos);
  std::string_view flag = detail::next_token(value, pos);
  std::string_view state = detail::next_token(value, pos);
  r.want = std::string(want);
  r.flag = std::string(flag);
  r.status = std::string(state);
}

} // namespace

std::vector<DpkgRecord> dpkg_records(std::string_view text) {
  std::vector<DpkgRecord> out;
  DpkgRecord r;
  auto flush = [&] {
    if (!r.name.empty() && out.size() < k_max_records) out.push_back(std::move(r));
    r = {};
  };
  detail::for_each_line(text, [&](std::string_view line) {
    if (detail::trim_view(line).empty()) return flush();
    if (detail::is_space(line.front())) return; // continuation of a multi-line field
    // The field's name once per line (value_after's rule: trimmed, up to the first ':'), then its value.
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view field = detail::trim_view(line.substr(0, colon));
    std::string_view value = detail::trim_view(line.substr(colon + 1));
    if (field == "Package")
      r.name = std::string(value);
    else if (field == "Status")
      split_status(value, r);
    else if (field == "Version")
      r.version = std::string(value);
    else if (field == "Maintainer")
      r.maintainer = std::string(value);
    else if (field == "Depends" || field == "Pre-Depends")
      add_clauses(value, r.clauses);
    else if (field == "Provides") {
      std::vector<std::vector<std::string>> names;
      add_clauses(value, names);
      for (auto& n : names)
        r.provides.insert(r.provides.end(), n.begin(), n.end());
    }
  });
  flush();
  return out;
}

std::vector<std::string> apt_auto_installed(std::string_view text) {
  std::vector<std::string> out;
  std::string name;
  bool is_auto = false;
  auto flush = [&] {
    if (!name.empty() && is_auto && out.size() < k_max_records) out.push_back(name);
    name.clear();
    is_auto = false;
  };
  detail::for_each_line(text, [&](std::string_view line) {
    if (detail::trim_view(line).empty()) return flush();
    if (auto v = detail::value_after(line, "Package"))
      name = std::string(*v);
    else if (auto a = detail::value_after(line, "Auto-Installed"))
      is_auto = *a == "1";
  });
  flush();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> dnf_versionlock(std::string_view text) {
  std::vector<std::string> out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    if (line.empty() || line.front() == '#' || out.size() >= k_max_records) return;
    if (line.find_first_of(" \t") != std::string_view::npos) return;
    out.emplace_back(line);
  });
  return out;
}

std::string versionlock_name(std::string_view entry) {
  if (entry.empty() || entry.front() == '!') return {};
  // The name ends at the '-' before the version, the first '-' followed by a digit (or "N:" epoch).
  for (std::size_t i = 1; i + 1 < entry.size(); ++i)
    if (entry[i] == '-' && detail::is_digit(entry[i + 1])) return std::string(entry.substr(0, i));
  return {};
}

std::map<std::string, RpmRelations> rpm_relations(std::string_view text) {
  std::map<std::string, RpmRelations> out;
  detail::for_each_line(text, [&](std::string_view line) {
    std::size_t t1 = line.find('\t');
    if (t1 == std::string_view::npos || t1 == 0) return;
    std::size_t t2 = line.find('\t', t1 + 1);
    if (t2 == std::string_view::npos) return;
    std::string_view name = line.substr(0, t1), kind = line.substr(t1 + 1, t2 - t1 - 1);
    std::string_view cap = detail::trim_view(line.substr(t2 + 1));
    cap = cap.substr(0, cap.find_first_of(" \t"));
    if (cap.empty() || (kind != "P" && kind != "R") || out.size() >= k_max_records) return;
    if (kind == "R" && (cap.front() == '/' || cap.starts_with("rpmlib("))) return;
    auto& rel = out[std::string(name)];
    (kind == "P" ? rel.provides : rel.requires_).emplace_back(cap);
  });
  return out;
}

} // namespace gpudoctor::parse
