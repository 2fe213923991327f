// The fleet for people, ordered for triage: the worst nodes with the checks each fails, which nodes fail each
// check, then what drifts and who the odd ones out are; what agrees in a few lines; the nodes themselves when
// there are few (or with -v).
#include "fleet/fleet_triage.hpp"
#include "report/fleet_render.hpp"
#include "report/term_style.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using escape::one_line;

constexpr std::size_t k_names_in_text = 10; // names per list without -v; the rest are counted
constexpr std::size_t k_nodes_listed = 50;  // nodes listed one a line without -v
constexpr std::size_t k_name_width = 30;
constexpr std::size_t k_worst_nodes = 20;      // the worst nodes without -v
constexpr std::size_t k_worst_nodes_all = 500; // and with it

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string value_text(const FleetRow& row, const FleetValue& v) {
  if (v.absent) return absent_text(row.group);
  return v.value.empty() ? "\"\"" : one_line(v.value);
}

std::string names(const Fleet& f, const std::vector<std::size_t>& nodes, bool all) {
  std::string out;
  std::size_t shown = all ? nodes.size() : std::min(nodes.size(), k_names_in_text);
  for (std::size_t i = 0; i < shown; ++i)
    out += (i ? ", " : "") + one_line(f.nodes[nodes[i]].name);
  if (shown < nodes.size()) out += fmt::format(" and {} more", nodes.size() - shown);
  return out;
}

// Width in code points, so that "×" and "·" count as one column.
std::size_t columns(const std::string& s) {
  std::size_t cols = 0;
  for (unsigned char c : s)
    cols += (c & 0xC0) != 0x80;
  return cols;
}

std::string padded(std::string s, std::size_t width) {
  if (std::size_t cols = columns(s); cols < width) s.append(width - cols, ' ');
  return s;
}

void drift(const Fleet& f, const FleetTextOptions& opt, const TermStyle& st, std::string& out) {
  std::string group;
  for (const auto& row : f.rows) {
    if (!row.drifts()) continue;
    if (group.empty())
      out += "\n" + st.paint("1", "Drift") +
             st.paint("2", " (each value, on how many nodes; the odd ones out named)") + "\n";
    if (row.group != group) out += "  " + st.paint("1", one_line(row.group)) + "\n";
    group = row.group;
    for (std::size_t i = 0; i < row.values.size(); ++i) {
      const FleetValue& v = row.values[i];
      std::string label = padded(i == 0 ? one_line(row.name) : "", k_name_width);
      std::string line = fmt::format("{} on {}", value_text(row, v), plural(v.nodes.size(), "node", "nodes"));
      bool odd = i > 0 || !row.has_majority();
      if (odd) line = st.paint("33", line) + ": " + names(f, v.nodes, opt.verbose);
      out += "    " + label + "  " + line + "\n";
    }
  }
}

std::string subjects(const NodeHit& h) {
  std::vector<std::string> named;
  for (const auto& s : h.subjects)
    if (!s.empty()) named.push_back(one_line(s));
  if (named.empty()) return "";
  std::string joined;
  for (std::size_t i = 0; i < named.size(); ++i)
    joined += (i ? ", " : "") + named[i];
  return " (" + joined + ")";
}

std::string hits(const Fleet& f, const std::vector<NodeHit>& list, bool all) {
  std::string out;
  std::size_t shown = all ? list.size() : std::min(list.size(), k_names_in_text);
  for (std::size_t i = 0; i < shown; ++i)
    out += (i ? ", " : "") + one_line(f.nodes[list[i].node].name) + subjects(list[i]);
  if (shown < list.size()) out += fmt::format(" and {} more", list.size() - shown);
  return out;
}

// Who fails what: the worst nodes first, each with the checks it fails (errors, then warnings).
void worst_nodes(const Fleet& f, const FleetTextOptions& opt, const TermStyle& st, std::string& out) {
  Triage t = triage(f, opt.verbose ? k_worst_nodes_all : k_worst_nodes);
  if (t.nodes.empty()) return;
  out += "\n" + st.paint("1", "Worst nodes") + st.paint("2", " (the checks each fails, errors first)") + "\n";
  std::size_t width = 4;
  for (const auto& n : t.nodes)
    width = std::max(width, std::min(columns(one_line(f.nodes[n.node].name)), k_name_width));
  for (const auto& n : t.nodes) {
    std::string errors, warnings;
    for (const auto& [c, status] : n.checks) {
      std::string& list = status == Status::error ? errors : warnings;
      list += (list.empty() ? "" : ", ") + one_line(f.checks[c].id);
    }
    std::string line = "  " + padded(one_line(f.nodes[n.node].name), width) + "  ";
    if (!errors.empty()) line += st.mark(Status::error) + " " + st.paint("31", errors);
    if (!warnings.empty())
      line +=
          std::string(errors.empty() ? "" : "  ") + st.mark(Status::warn) + " " + st.paint("33", warnings);
    out += line + "\n";
  }
  if (t.more_nodes)
    out += fmt::format("  and {} more with a problem{}\n", plural(t.more_nodes, "node", "nodes"),
                       opt.verbose ? "" : " (-v lists more)");
}

void failing(const Fleet& f, const FleetTextOptions& opt, const TermStyle& st, std::string& out) {
  bool any = false;
  for (const auto& c : f.checks) {
    if (c.errors.empty() && c.warnings.empty()) continue;
    if (!any) out += "\n" + st.paint("1", "Failing checks") + "\n";
    any = true;
    Status worst = c.errors.empty() ? Status::warn : Status::error;
    out += "  " + st.mark(worst) + "  " + st.paint("1", one_line(c.id)) + "  " + one_line(c.title) + "\n";
    std::size_t total = f.nodes.size();
    if (!c.errors.empty())
      out += fmt::format("      error on {} of {}: {}\n", c.errors.size(), plural(total, "node", "nodes"),
                         hits(f, c.errors, opt.verbose));
    if (!c.warnings.empty())
      out += fmt::format("      warning on {} of {}: {}\n", c.warnings.size(), plural(total, "node", "nodes"),
                         hits(f, c.warnings, opt.verbose));
  }
}

// The rows every node agrees on: one line per group (-v: one per row); variables and Python packages only
// counted, since a fleet agrees on many.
void agreed(const Fleet& f, const FleetTextOptions& opt, const TermStyle& st, std::string& out) {
  std::map<int, std::pair<std::string, std::vector<std::string>>> groups; // by rank / 100: table order
  std::size_t count = 0;
  for (const auto& row : f.rows) {
    if (row.drifts() || row.values.empty()) continue;
    ++count;
    auto& [group, items] = groups[row.rank / 100];
    group = row.group;
    items.push_back(one_line(row.name) + " " + value_text(row, row.values[0]));
  }
  if (count == 0) return;
  out += "\n" + st.paint("1", "The same on every node") +
         st.paint("2", fmt::format(" ({} properties)", count)) + "\n";
  for (const auto& [rank, entry] : groups) {
    const auto& [group, items] = entry;
    bool long_group = group == "Environment" || group == "Python packages";
    if (opt.verbose) {
      out += "  " + st.paint("1", one_line(group)) + "\n";
      for (const auto& item : items)
        out += "    " + item + "\n";
    } else if (long_group) {
      out += "  " + padded(one_line(group), 16) +
             st.paint("2", plural(items.size(), "value", "values") + " (-v lists them)") + "\n";
    } else {
      std::string line;
      for (std::size_t i = 0; i < items.size(); ++i)
        line += (i ? " · " : "") + items[i];
      out += "  " + padded(one_line(group), 16) + line + "\n";
    }
  }
}

void node_list(const Fleet& f, const FleetTextOptions& opt, const TermStyle& st, std::string& out) {
  out += "\n" + st.paint("1", "Nodes") + "\n";
  if (!opt.verbose && f.nodes.size() > k_nodes_listed) {
    out += fmt::format("  {} (-v lists them)\n", plural(f.nodes.size(), "node", "nodes"));
    return;
  }
  constexpr std::size_t k_name_columns = 40; // a longer name gets a line of its own, the columns stay
  std::size_t width = 4;
  for (const auto& n : f.nodes)
    width = std::max(width, std::min(columns(one_line(n.name)), k_name_columns));
  for (const auto& n : f.nodes) {
    int errors = n.counts[static_cast<int>(Status::error)], warns = n.counts[static_cast<int>(Status::warn)];
    std::string tally = fmt::format("{:>3} {:<6} {:>3} {:<8}", errors, errors == 1 ? "error" : "errors",
                                    warns, warns == 1 ? "warning" : "warnings");
    if (errors)
      tally = st.paint("31", tally);
    else if (warns)
      tally = st.paint("33", tally);
    std::string name = padded(one_line(n.name), width);
    if (columns(name) > width) {
      out += fmt::format("  {}\n", one_line(n.name));
      name = std::string(width, ' ');
    }
    out += fmt::format("  {}  {}  {}  {}\n", name, tally, n.gpus.empty() ? "no GPU" : one_line(n.gpus),
                       st.paint("2", one_line(n.origin) + " " + one_line(n.input)));
  }
}

void duplicates(const Fleet& f, const TermStyle& st, std::string& out) {
  if (f.duplicates.empty()) return;
  out += "\n" + st.paint("1", "One host name, several inputs") + "\n";
  for (const auto& d : f.duplicates) {
    std::string why = d.why();
    std::vector<std::string> inputs;
    for (auto n : d.nodes)
      inputs.push_back(one_line(f.nodes[n].input));
    std::string list;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      list += (i ? ", " : "") + inputs[i];
    out += fmt::format("  {}: {} ({}): {}\n", one_line(d.host), plural(d.nodes.size(), "input", "inputs"),
                       list, why);
  }
}

void unreadable(const Fleet& f, const TermStyle& st, std::string& out) {
  if (f.unreadable.empty()) return;
  out += "\n" + st.paint("1;31", "Unreadable inputs") + "\n";
  for (const auto& u : f.unreadable)
    out += "  " + one_line(u.input) + ": " + one_line(u.error) + "\n";
}

} // namespace

std::string render_fleet_text(const Fleet& f, const FleetTextOptions& opt) {
  TermStyle st{opt.color};
  std::size_t errors = f.nodes_with(Status::error), warns = f.nodes_with(Status::warn),
              drifting = f.drifting_rows();
  std::string out =
      st.paint("1", fmt::format("gpudoctor fleet · {}", plural(f.nodes.size(), "node", "nodes")));
  out += fmt::format(" · {} with errors · {} with warnings · {}\n", errors, warns,
                     drifting == 1 ? "1 property drifts" : fmt::format("{} properties drift", drifting));
  worst_nodes(f, opt, st, out);
  failing(f, opt, st, out);
  drift(f, opt, st, out);
  agreed(f, opt, st, out);
  node_list(f, opt, st, out);
  duplicates(f, st, out);
  unreadable(f, st, out);
  out += "\n";
  if (errors == 0 && warns == 0 && drifting == 0 && f.unreadable.empty())
    out += st.paint("1;32", "No drift, no problems.") + " ";
  out += fmt::format("{}: {} with errors, {} with warnings; {} of {} properties drift",
                     plural(f.nodes.size(), "node", "nodes"), errors, warns, drifting, f.rows.size());
  if (!f.unreadable.empty())
    out += fmt::format("; {} unreadable", plural(f.unreadable.size(), "input", "inputs"));
  out += ".\n";
  return out;
}

} // namespace gpudoctor
