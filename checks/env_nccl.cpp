// env.nccl-unknown, env.nccl-invalid: NCCL_*/RCCL_* names and values against checks/knowledge/nccl.yaml, for
// the environment and NCCL's configuration files alike.
#include "checks/common.hpp"
#include "checks/nccl_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

namespace gpudoctor::checks {

namespace {

bool same(const std::string& a, const std::string& b, bool case_sensitive) {
  return case_sensitive ? a == b : text::lower(a) == text::lower(b);
}

bool one_of(const std::string& v, const std::vector<std::string>& values, bool case_sensitive) {
  return std::ranges::any_of(values, [&](const std::string& x) { return same(v, x, case_sensitive); });
}

// " (did you mean Ring?)" for a value near one of `values`, else "".
std::string nearest_value(const std::string& v, const std::vector<std::string>& values) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto& x : values) {
    std::size_t d = text::edit_distance(text::lower(v), text::lower(x));
    if (d < best_d) best_d = d, best = x;
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

// Why a value is outside its variable's domain, as NCCL reads it; empty when it is fine.
std::string judge_int(const NcclVarRow& row, const std::string& v) {
  NcclNumber n = nccl_number(v);
  if (!n.digits)
    return "\"" + printable(v) + "\" is not a number: NCCL reads it as 0" +
           (row.kind == "bool" ? ", which is \"off\"" : "");
  if (n.overflow) return "\"" + printable(v) + "\" is out of range: NCCL ignores it and keeps its default";
  if (!n.complete)
    return "\"" + printable(v) + "\" is not a plain number: NCCL reads only its start, " +
           std::to_string(n.value) + ", and ignores the rest";
  if (n.octal && n.value >= 8)
    return "\"" + v + "\" starts with 0, so NCCL reads it as the octal number " + std::to_string(n.value);
  if (row.kind == "bool" && n.value != 0 && n.value != 1) return "NCCL expects 0 or 1, not " + v;
  if (row.min && n.value < *row.min)
    return std::to_string(n.value) + " is below the smallest valid value, " + std::to_string(*row.min);
  if (row.max && n.value > *row.max)
    return std::to_string(n.value) + " is above the largest valid value, " + std::to_string(*row.max);
  if (!row.values.empty() &&
      std::ranges::none_of(row.values, [&](const std::string& x) { return text::to_int(x) == n.value; }))
    return std::to_string(n.value) + " is not one of " + text::join(row.values, ", ");
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
        return "\"" + list + "\" has a ':' but " + row.name + " takes no function prefix";
      if (!one_of(function, row.functions, false))
        return "\"" + function + "\" is not a collective (" + text::join(row.functions, ", ") + ")" +
               nearest_value(function, row.functions);
      list = list.substr(colon + 1);
    } else if (p > 0) {
      return "every part after the first needs a \"<function>:\" prefix (\"" + list + "\" has none)";
    }
    if (!list.empty() && list[0] == '^') list = list.substr(1);
    auto elements = text::split(list, ',');
    if (elements.empty()) return "\"" + parts[p] + "\" names nothing";
    for (const auto& e : elements)
      if (!one_of(e, row.values, row.case_sensitive))
        return "\"" + printable(e) + "\" is not one of " + text::join(row.values, ", ") +
               nearest_value(e, row.values);
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
      return "entry \"" + e + "\" has a blank, which NCCL keeps as part of the name: it matches nothing";
    auto fields = text::split(e, ':', true);
    std::size_t max_fields = row.kind == "hcas" ? 4 : 2;
    if (fields.size() > max_fields)
      return "entry \"" + e + "\" has more ':' fields than " +
             (row.kind == "hcas" ? "hca:port:rail:plane" : "name:port");
    for (std::size_t i = 1; i < fields.size(); ++i)
      if (!text::to_int(fields[i], 10))
        return "entry \"" + e + "\" has \"" + fields[i] + "\" where a number belongs";
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
               : "\"" + printable(v) + "\" is not one of " + text::join(row.values, ", ") +
                     (row.case_sensitive ? " (case matters)" : "") + ": NCCL ignores it" +
                     nearest_value(v, row.values);
  if (row.kind == "level") {
    if (one_of(v, row.values, true)) return "";
    if (!v.empty() && v[0] >= '0' && v[0] <= '9') return ""; // legacy numbers: accepted (and discouraged)
    return "\"" + printable(v) + "\" is not one of " + text::join(row.values, ", ") +
           " (case matters) or a legacy number: NCCL ignores it and chooses by itself" +
           nearest_value(v, row.values);
  }
  if (row.kind == "list") {
    std::string why = judge_list(row, v);
    if (why.empty()) return why;
    return why + (row.functions.empty()
                      ? ": NCCL ignores it"
                      : ": recent NCCL (2.24+) refuses the value (\"Unrecognized element token\") "
                        "and creating the communicator fails");
  }
  if (row.kind == "ifnames" || row.kind == "hcas") return judge_names(row, v);
  return "";
}

std::string since_text(const NcclVarRow& row) {
  return row.since.empty() ? "" : " (NCCL " + row.since + " and later)";
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
    std::vector<std::string> evidence = {s.evidence()};
    if (name != s.name) {
      out.add(Status::warn, s.name,
              "\"" + s.name + "\" in " + s.where() +
                  " has blanks around the name: NCCL sets a variable called \"" + s.name +
                  "\", which nothing reads, so " + name + " is not set. Write it as " + name + "=" +
                  text::trim(s.value) + ".",
              evidence);
      continue;
    }
    if (const NcclVarRow* row = k.nccl_var(name)) {
      evidence.push_back("knowledge nccl_vars " + row->name + ": " + row->source);
      if (!row->removed.empty()) {
        out.add(Status::warn, name,
                name + " was removed in NCCL " + row->removed +
                    " and has no effect any more; remove it from " + s.where() + ".",
                evidence);
      } else if (!row->deprecated.empty() && row->rccl_current && ctx.facts.count(Vendor::nvidia) == 0 &&
                 ctx.facts.count(Vendor::amd) > 0) {
        // The library here is RCCL, which still reads and documents it.
        out.pass(name,
                 name + " is a known variable: RCCL reads it and documents it; only NCCL replaced it" +
                     (row->replaced_by.empty() ? "" : ", with " + row->replaced_by) + ", in " +
                     row->deprecated,
                 evidence);
      } else if (!row->deprecated.empty()) {
        std::string when = row->deprecated == "yes" ? "" : " since NCCL " + row->deprecated;
        out.pass(name,
                 name + " is deprecated" + when +
                     (row->replaced_by.empty() ? "" : "; " + row->replaced_by + " replaces it"),
                 evidence);
      } else {
        std::string who = row->rccl_only ? "RCCL (ROCm) reads it" : "NCCL reads it" + since_text(*row);
        out.pass(name, name + " is a known variable: " + who, evidence);
      }
      continue;
    }
    if (const NcclPrefixRow* family = k.nccl_prefix(name)) {
      out.pass(name, name + " belongs to the " + family->prefix + "* family NCCL's code reads",
               {s.evidence(), "knowledge nccl_prefixes " + family->prefix + ": " + family->source});
      continue;
    }
    if (const NcclForeignRow* foreign = k.nccl_foreign_name(name)) {
      out.pass(name,
               name + " is not NCCL's: " + foreign->reader + " reads it" +
                   (foreign->replaced_by.empty() ? "" : "; its current name is " + foreign->replaced_by),
               {s.evidence(), "knowledge nccl_foreign_names " + foreign->name + ": " + foreign->source});
      continue;
    }
    auto near = k.nccl_closest(name, name.size() >= 12 ? 3 : 2);
    std::string suggestion = near.empty() ? "" : " Did you mean " + near.front() + "?";
    bool rccl = text::starts_with(name, "RCCL_");
    std::string what =
        rccl ? name + " is not among the RCCL variables gpudoctor knows (RCCL 2.21.5; a newer RCCL "
                      "may read it)"
             : name + " is not a variable NCCL or RCCL reads";
    out.add(Status::warn, name, what + ", so setting it in " + s.where() + " has no effect." + suggestion,
            evidence);
  }
}

void env_nccl_invalid(const CheckContext& ctx, Results& out) {
  const EnvKnowledge& k = ctx.kb.env;
  bool any = false;
  for (const auto& s : nccl_settings(ctx.facts)) {
    const NcclVarRow* row = k.nccl_var(s.name);
    if (!row || !row->removed.empty()) continue; // env.nccl-unknown speaks about those
    any = true;
    std::vector<std::string> evidence = {s.evidence(), "knowledge nccl_vars " + row->name + " (" + row->kind +
                                                           "): " + row->source};
    if (s.value.empty()) {
      out.pass(s.name, s.name + " is set but empty: NCCL uses its default", evidence);
      continue;
    }
    std::string why = nccl_value_problem(*row, s.value);
    if (why.empty()) {
      out.pass(s.name, s.name + "=" + printable(s.value) + " is a valid value", evidence);
      continue;
    }
    std::string note = row->note.empty() ? "" : " (" + row->note + ")";
    out.add(row->uncertain ? Status::warn : Status::error, s.name,
            s.name + "=" + printable(s.value) + " in " + s.where() + ": " + why + "." + note +
                (row->uncertain ? " gpudoctor's list of values for it may be incomplete." : ""),
            evidence);
  }
  if (!any) out.pass("", "no known NCCL or RCCL variable is set");
}

} // namespace gpudoctor::checks
