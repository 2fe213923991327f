// env.nccl-unknown, env.nccl-invalid: NCCL_*/RCCL_* names and values against checks/knowledge/nccl.yaml, for
// the environment and NCCL's configuration files alike.
#include "checks/common.hpp"
#include "checks/nccl_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool same(const std::string& a, const std::string& b, bool case_sensitive) {
  return case_sensitive ? a == b : text::lower(a) == text::lower(b);
}

bool one_of(const std::string& v, const std::vector<std::string>& values, bool case_sensitive) {
  return std::ranges::any_of(values, [&](const std::string& x) { return same(v, x, case_sensitive); });
}

// The one of `values` nearest `v` (fewer than 3 edits), or "".
std::string nearest(const std::string& v, const std::vector<std::string>& values) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& x : values) {
    std::size_t d = text::edit_distance(text::lower(v), text::lower(x));
    if (d < best_d) best_d = d, best = x;
  }
  return best;
}

// " (did you mean Ring?)" for a value near one of `values`, else "".
std::string nearest_value(const std::string& v, const std::vector<std::string>& values) {
  std::string best = nearest(v, values);
  return best.empty() ? "" : fmt::format(" (did you mean {}?)", best);
}

// Why a value is outside its variable's domain, as NCCL reads it; empty when it is fine.
std::string judge_int(const NcclVarRow& row, const std::string& v) {
  NcclNumber n = nccl_number(v);
  if (!n.digits)
    return fmt::format("\"{}\" is not a number: NCCL reads it as 0{}", printable(v),
                       row.kind == "bool" ? ", which is \"off\"" : "");
  if (n.overflow)
    return fmt::format("\"{}\" is out of range: NCCL ignores it and keeps its default", printable(v));
  if (!n.complete)
    return fmt::format("\"{}\" is not a plain number: NCCL reads only its start, {}, and ignores the rest",
                       printable(v), n.value);
  if (n.octal && n.value >= 8)
    return fmt::format("\"{}\" starts with 0, so NCCL reads it as the octal number {}", printable(v),
                       n.value);
  if (row.kind == "bool" && n.value != 0 && n.value != 1)
    return fmt::format("NCCL expects 0 or 1, not {}", printable(v));
  if (row.min && n.value < *row.min)
    return fmt::format("{} is below the smallest valid value, {}", n.value, *row.min);
  if (row.max && n.value > *row.max)
    return fmt::format("{} is above the largest valid value, {}", n.value, *row.max);
  if (!row.values.empty() &&
      std::ranges::none_of(row.values, [&](const std::string& x) { return text::to_int(x) == n.value; }))
    return fmt::format("{} is not one of {}", n.value, text::join(row.values, ", "));
  return "";
}

// NCCL_ALGO / NCCL_PROTO / NCCL_DEBUG_SUBSYS: [<function>:][^]a,b;<function>:[^]c (tuning.cc parseList).
std::string judge_list(const NcclVarRow& row, const std::string& v) {
  auto parts = text::split(v, ';');
  if (parts.empty()) return "it names nothing";
  for (std::size_t p = 0; p < parts.size(); ++p) {
    std::string list = parts[p];
    auto colon = list.find(':');
    if (colon != std::string::npos) {
      std::string function = list.substr(0, colon);
      if (row.functions.empty())
        return fmt::format("\"{}\" has a ':' but {} takes no function prefix", printable(list), row.name);
      if (!one_of(function, row.functions, false))
        return fmt::format("\"{}\" is not a collective ({}){}", printable(function),
                           text::join(row.functions, ", "), nearest_value(function, row.functions));
      list = list.substr(colon + 1);
    } else if (p > 0) {
      return fmt::format("every part after the first needs a \"<function>:\" prefix (\"{}\" has none)",
                         printable(list));
    }
    if (!list.empty() && list[0] == '^') list = list.substr(1);
    auto elements = text::split(list, ',');
    if (elements.empty()) return fmt::format("\"{}\" names nothing", printable(parts[p]));
    for (const auto& e : elements)
      if (!one_of(e, row.values, row.case_sensitive))
        return fmt::format("\"{}\" is not one of {}{}", printable(e), text::join(row.values, ", "),
                           nearest_value(e, row.values));
  }
  return "";
}

// NCCL_SOCKET_IFNAME / NCCL_IB_HCA: [^][=]name[:port...],... (NCCL does not trim blanks).
std::string judge_names(const NcclVarRow& row, const std::string& v) {
  std::string list = v;
  if (!list.empty() && list[0] == '^') list = list.substr(1);
  if (!list.empty() && list[0] == '=') list = list.substr(1);
  auto entries = text::split(list, ',', true);
  for (const auto& e : entries) {
    if (e.empty()) continue; // NCCL skips empty entries
    if (e.find_first_of(" \t") != std::string::npos)
      return fmt::format("entry \"{}\" has a blank, which NCCL keeps as part of the name: it matches nothing",
                         printable(e));
    auto fields = text::split(e, ':', true);
    std::size_t max_fields = row.kind == "hcas" ? 4 : 2;
    if (fields.size() > max_fields)
      return fmt::format("entry \"{}\" has more ':' fields than {}", printable(e),
                         row.kind == "hcas" ? "hca:port:rail:plane" : "name:port");
    for (std::size_t i = 1; i < fields.size(); ++i)
      if (!text::to_int(fields[i], 10))
        return fmt::format("entry \"{}\" has \"{}\" where a number belongs", printable(e),
                           printable(fields[i]));
  }
  if (std::ranges::all_of(entries, [](const std::string& e) { return e.empty(); })) return "it names nothing";
  return "";
}

std::string judge(const NcclVarRow& row, const std::string& v) {
  if (v.find('\r') != std::string::npos)
    return "the value ends in a carriage return (a file with Windows line ends), which NCCL keeps as part of "
           "it";
  if (row.kind == "int" || row.kind == "bool") return judge_int(row, v);
  if (row.kind == "enum")
    return one_of(v, row.values, row.case_sensitive)
               ? ""
               : fmt::format("\"{}\" is not one of {}{}: NCCL ignores it{}", printable(v),
                             text::join(row.values, ", "), row.case_sensitive ? " (case matters)" : "",
                             nearest_value(v, row.values));
  if (row.kind == "level") {
    if (one_of(v, row.values, true)) return "";
    if (!v.empty() && v[0] >= '0' && v[0] <= '9') return ""; // legacy numbers: accepted (and discouraged)
    return fmt::format(
        "\"{}\" is not one of {} (case matters) or a legacy number: NCCL ignores it and chooses by itself{}",
        printable(v), text::join(row.values, ", "), nearest_value(v, row.values));
  }
  if (row.kind == "list") {
    std::string why = judge_list(row, v);
    if (why.empty()) return why;
    if (row.functions.empty()) return fmt::format("{}: NCCL ignores it", why);
    return fmt::format(
        "{}: recent NCCL (2.24+) refuses the value (\"Unrecognized element token\") and creating the "
        "communicator fails",
        why);
  }
  if (row.kind == "ifnames" || row.kind == "hcas") return judge_names(row, v);
  return "";
}

std::string since_text(const NcclVarRow& row) {
  return row.since.empty() ? "" : fmt::format(" (NCCL {} and later)", row.since);
}

} // namespace

std::string nccl_value_problem(const NcclVarRow& row, const std::string& value) {
  return judge(row, value);
}

void env_nccl_unknown(const CheckContext& ctx, Results& out) {
  const EnvKnowledge& k = ctx.kb.env;
  auto settings = nccl_settings(ctx.facts);
  if (settings.empty())
    return out.pass("", "no NCCL_ or RCCL_ variable is set, in the environment or NCCL's files");
  for (const auto& s : settings) {
    std::string name = text::trim(s.name);
    std::vector<std::string> evidence = {nccl_evidence(ctx.facts, s)};
    if (name != s.name) {
      out.add(Status::warn, s.name,
              fmt::format("\"{0}\" in {1} has blanks around the name: NCCL sets a variable called \"{0}\", "
                          "which nothing reads, so {2} is not set. Write it as {2}={3}.",
                          printable(s.name), nccl_where(ctx.facts, s), printable(name),
                          printable(text::trim(s.value))),
              evidence);
      out.act(nccl_change(s, text::trim(s.value), name));
      continue;
    }
    if (const NcclVarRow* row = k.nccl_var(name)) {
      evidence.push_back(fmt::format("knowledge nccl_vars {}: {}", row->name, row->source));
      if (!row->removed.empty()) {
        out.add(Status::warn, name,
                fmt::format("{} was removed in NCCL {} and has no effect any more; remove it from {}.", name,
                            row->removed, nccl_where(ctx.facts, s)),
                evidence);
        out.act(nccl_change(s, std::nullopt));
      } else if (!row->deprecated.empty() && row->rccl_current && ctx.facts.count(Vendor::nvidia) == 0 &&
                 ctx.facts.count(Vendor::amd) > 0) {
        // The library here is RCCL, which still reads and documents it.
        std::string with = row->replaced_by.empty() ? "" : fmt::format(", with {}", row->replaced_by);
        out.pass(
            name,
            fmt::format("{} is a known variable: RCCL reads it and documents it; only NCCL replaced it{}, "
                        "in {}",
                        name, with, row->deprecated),
            evidence);
      } else if (!row->deprecated.empty()) {
        std::string when = row->deprecated == "yes" ? "" : fmt::format(" since NCCL {}", row->deprecated);
        std::string by = row->replaced_by.empty() ? "" : fmt::format("; {} replaces it", row->replaced_by);
        out.pass(name, fmt::format("{} is deprecated{}{}", name, when, by), evidence);
      } else {
        std::string who =
            row->rccl_only ? "RCCL (ROCm) reads it" : fmt::format("NCCL reads it{}", since_text(*row));
        out.pass(name, fmt::format("{} is a known variable: {}", name, who), evidence);
      }
      continue;
    }
    if (const NcclPrefixRow* family = k.nccl_prefix(name)) {
      out.pass(name, fmt::format("{} belongs to the {}* family NCCL's code reads", name, family->prefix),
               {nccl_evidence(ctx.facts, s),
                fmt::format("knowledge nccl_prefixes {}: {}", family->prefix, family->source)});
      continue;
    }
    if (const NcclForeignRow* foreign = k.nccl_foreign_name(name)) {
      std::string current =
          foreign->replaced_by.empty() ? "" : fmt::format("; its current name is {}", foreign->replaced_by);
      out.pass(name, fmt::format("{} is not NCCL's: {} reads it{}", name, foreign->reader, current),
               {nccl_evidence(ctx.facts, s),
                fmt::format("knowledge nccl_foreign_names {}: {}", foreign->name, foreign->source)});
      continue;
    }
    auto near = k.nccl_closest(name, name.size() >= 12 ? 3 : 2);
    std::string suggestion = near.empty() ? "" : fmt::format(" Did you mean {}?", near.front());
    std::string what =
        text::starts_with(name, "RCCL_")
            ? "is not among the RCCL variables gpudoctor knows (RCCL 2.21.5; a newer RCCL may read it)"
            : "is not a variable NCCL or RCCL reads";
    out.add(Status::warn, name,
            fmt::format("{} {}, so setting it in {} has no effect.{}", printable(name), what,
                        nccl_where(ctx.facts, s), suggestion),
            evidence);
    // A near name is what was meant; without one, what is set does nothing and goes.
    out.act(near.empty() ? nccl_change(s, std::nullopt) : nccl_change(s, s.value, near.front()));
  }
}

void env_nccl_invalid(const CheckContext& ctx, Results& out) {
  const EnvKnowledge& k = ctx.kb.env;
  bool any = false;
  for (const auto& s : nccl_settings(ctx.facts)) {
    const NcclVarRow* row = k.nccl_var(s.name);
    if (!row || !row->removed.empty()) continue; // env.nccl-unknown speaks about those
    any = true;
    std::vector<std::string> evidence = {
        nccl_evidence(ctx.facts, s),
        fmt::format("knowledge nccl_vars {} ({}): {}", row->name, row->kind, row->source)};
    if (s.value.empty()) {
      out.pass(s.name, fmt::format("{} is set but empty: NCCL uses its default", s.name), evidence);
      continue;
    }
    std::string why = nccl_value_problem(*row, s.value);
    if (why.empty()) {
      out.pass(s.name, fmt::format("{}={} is a valid value", s.name, printable(s.value)), evidence);
      continue;
    }
    std::string note = row->note.empty() ? "" : fmt::format(" ({})", row->note);
    out.add(row->uncertain ? Status::warn : Status::error, s.name,
            fmt::format("{}={} in {}: {}.{}{}", s.name, printable(s.value), nccl_where(ctx.facts, s), why,
                        note, row->uncertain ? " gpudoctor's list of values for it may be incomplete." : ""),
            evidence);
    // The value meant where one is near (a list of one element included), else NCCL's default.
    std::string meant = row->kind == "enum" || row->kind == "level" || row->kind == "list"
                            ? nearest(s.value, row->values)
                            : "";
    out.act(nccl_change(s, meant.empty() ? std::nullopt : std::optional<std::string>(meant)));
  }
  if (!any) out.pass("", "no known NCCL or RCCL variable is set");
}

} // namespace gpudoctor::checks
