// env.alloc-conf-invalid, env.alloc-conf-shadowed: PyTorch's caching-allocator settings (knowledge.md §5.4,
// checks/knowledge/pytorch_env.yaml).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

constexpr const char* k_generic = "PYTORCH_ALLOC_CONF";
constexpr const char* k_cuda = "PYTORCH_CUDA_ALLOC_CONF";
constexpr const char* k_hip = "PYTORCH_HIP_ALLOC_CONF";
// The first PyTorch release that reads PYTORCH_ALLOC_CONF first: knowledge.md §5.4 marks it "?" (2.9+ in
// community code), so the messages hedge it.
constexpr const char* k_generic_since = "2.9";

// c10 ConfigTokenizer: ',', ':', '[' and ']' are tokens of their own; blanks are dropped.
std::vector<std::string> tokens(const std::string& v) {
  std::vector<std::string> out;
  std::string buf;
  for (char c : v) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!buf.empty()) out.push_back(std::move(buf)), buf.clear();
      out.emplace_back(1, c);
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      buf += c;
    }
  }
  if (!buf.empty()) out.push_back(buf);
  return out;
}

// std::stoull / std::stod: a leading number is enough; nothing numeric throws invalid_argument.
std::optional<unsigned long long> leading_uint(const std::string& t) {
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return std::nullopt;
  return std::strtoull(t.c_str(), nullptr, 10);
}
std::optional<double> leading_double(const std::string& t) {
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str()) return std::nullopt;
  return v;
}

bool power_of_two(unsigned long long v) {
  return v != 0 && (v & (v - 1)) == 0;
}

struct Problem {
  std::string message;
  bool uncertain = false;           // the option's row is uncertain
  std::optional<std::string> meant; // the token that was meant, where one is near (`at`: which token)
  std::size_t at = 0;
};

class Parser {
public:
  Parser(const EnvKnowledge& k, std::vector<std::string> toks, bool cuda_build)
      : k_(k), t_(std::move(toks)), cuda_build_(cuda_build) {}

  std::optional<Problem> run() {
    for (i_ = 0; i_ < t_.size(); ++i_) {
      const std::string& key = t_[i_];
      if (key == "," || key == ":" || key == "[" || key == "]")
        return Problem{fmt::format("\"{}\" where an option name belongs", key)};
      const AllocOptionRow* row = k_.alloc_option(key);
      if (!row) {
        auto near = k_.alloc_closest(key, 3);
        std::string hint = near.empty() ? "" : fmt::format(" (did you mean {}?)", near.front());
        Problem p{fmt::format("\"{}\" is not an allocator option: PyTorch stops with \"Unrecognized "
                              "CachingAllocator option\"{}",
                              key, hint)};
        if (!near.empty()) p.meant = near.front(), p.at = i_;
        return p;
      }
      if (!next_is(":")) return Problem{fmt::format("option {} needs \":value\"", key)};
      i_ += 2;
      if (i_ >= t_.size()) return Problem{fmt::format("option {} has no value", key)};
      if (auto p = value(*row)) {
        p->uncertain = row->uncertain;
        return p;
      }
      if (i_ + 1 < t_.size()) {
        if (t_[i_ + 1] != ",")
          return Problem{fmt::format("expected \",\" after the value of {}, found \"{}\"", key, t_[i_ + 1])};
        ++i_;
        if (i_ + 1 >= t_.size()) return Problem{"a trailing \",\" with no option after it"};
      }
    }
    return std::nullopt;
  }

private:
  const EnvKnowledge& k_;
  std::vector<std::string> t_;
  bool cuda_build_;
  std::size_t i_ = 0;

  bool next_is(const char* tok) const { return i_ + 1 < t_.size() && t_[i_ + 1] == tok; }
  static Problem unclosed(const std::string& o) {
    return Problem{fmt::format("{} has a list without its closing \"]\"", o)};
  }

  std::optional<Problem> value(const AllocOptionRow& row) {
    const std::string& v = t_[i_];
    const std::string& o = row.option;
    if (row.kind == "divisions") return divisions(o);
    if (v == "," || v == ":" || v == "[" || v == "]")
      return Problem{fmt::format("option {} has no value", o)};
    if (row.kind == "bool") {
      if (v == "True" || v == "False") return std::nullopt;
      Problem p{fmt::format("{}:{} must be True or False (with a capital letter)", o, v)};
      if (text::lower(v) == "true" || text::lower(v) == "false")
        p.meant = text::lower(v) == "true" ? "True" : "False", p.at = i_;
      return p;
    }
    if (row.kind == "enum") {
      if (std::ranges::find(row.values, v) == row.values.end())
        return Problem{fmt::format("{}:{} is not one of {}", o, v, text::join(row.values, ", "))};
      if (v == "hipMallocAsync" && cuda_build_)
        return Problem{
            fmt::format("{}:hipMallocAsync is only for ROCm builds of PyTorch; this one is a CUDA build", o)};
      return std::nullopt;
    }
    if (row.kind == "fraction") {
      auto d = leading_double(v);
      if (!d) return Problem{fmt::format("{}:{} is not a number", o, v)};
      if (!(*d > 0.0 && *d < 1.0))
        return Problem{fmt::format("{}:{} must be between 0 and 1 (both excluded)", o, v)};
      return std::nullopt;
    }
    auto n = leading_uint(v);
    if (!n) return Problem{fmt::format("{}:{} is not a whole number", o, v)};
    if (row.kind == "size_mb" && row.min && *n < static_cast<unsigned long long>(*row.min))
      return Problem{fmt::format("{}:{} is too small: PyTorch wants at least {} (MB)", o, v, *row.min)};
    if (row.kind == "power_of_two" && !power_of_two(*n))
      return Problem{fmt::format("{}:{} must be a power of two", o, v)};
    if (row.max && *n > static_cast<unsigned long long>(*row.max))
      return Problem{fmt::format("{}:{} is above {}", o, v, *row.max)};
    if (row.kind == "positive_int" && *n == 0)
      return Problem{fmt::format("{}:{} must be greater than 0", o, v)};
    return std::nullopt;
  }

  // A power of two, or [size:divisions,...,>:divisions] with power-of-two sizes and power-of-two (or 0)
  // divisions.
  std::optional<Problem> divisions(const std::string& o) {
    if (t_[i_] != "[") {
      auto n = leading_uint(t_[i_]);
      if (!n || !power_of_two(*n))
        return Problem{
            fmt::format("{}:{} must be a power of two, or a [size:divisions,...] list", o, t_[i_])};
      return std::nullopt;
    }
    while (true) {
      ++i_;
      if (i_ >= t_.size()) return unclosed(o);
      if (t_[i_] == "]") return std::nullopt;
      const std::string& size = t_[i_];
      if (size != ">") {
        auto s = leading_uint(size);
        if (!s || !power_of_two(*s))
          return Problem{fmt::format("{}: the size {} must be a power of two (MB) or \">\"", o, size)};
      }
      if (!next_is(":")) return Problem{fmt::format("{}: the size {} needs \":divisions\"", o, size)};
      i_ += 2;
      if (i_ >= t_.size()) return unclosed(o);
      auto d = leading_uint(t_[i_]);
      if (!d || (*d != 0 && !power_of_two(*d)))
        return Problem{fmt::format("{}: the divisions {} must be a power of two, or 0", o, t_[i_])};
      if (next_is("]")) continue;
      if (!next_is(",")) return unclosed(o);
      ++i_;
    }
  }
};

// The value with the token that was meant in place of the wrong one (blanks dropped, as PyTorch drops them),
// where that value parses; nullopt otherwise.
std::optional<std::string> corrected(const EnvKnowledge& k, const std::string& value, const Problem& p,
                                     bool cuda_build) {
  if (!p.meant) return std::nullopt;
  auto toks = tokens(value);
  if (p.at >= toks.size()) return std::nullopt;
  toks[p.at] = *p.meant;
  if (Parser(k, toks, cuda_build).run()) return std::nullopt;
  std::string out;
  for (const auto& t : toks)
    out += t;
  return out;
}

std::vector<const TorchBuild*> torches(const Facts& f) {
  std::vector<const TorchBuild*> out;
  for (const auto& e : f.python.envs)
    if (e.torch) out.push_back(&*e.torch);
  return out;
}

} // namespace

void env_alloc_conf_invalid(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto builds = torches(f);
  // hipMallocAsync is wrong only where every PyTorch found is a CUDA build.
  bool cuda_build =
      !builds.empty() && std::ranges::all_of(builds, [](const TorchBuild* t) { return t->cuda && !t->hip; });
  bool any = false;
  for (const char* name : {k_generic, k_cuda, k_hip}) {
    auto it = f.env.all.find(name);
    if (it == f.env.all.end()) continue;
    any = true;
    std::vector<std::string> evidence = {env_evidence(ctx.facts, name, it->second)};
    auto problem = Parser(ctx.kb.env, tokens(it->second), cuda_build).run();
    if (!problem) {
      out.pass(name, fmt::format("{}={} parses", name, it->second), evidence);
      continue;
    }
    evidence.push_back(
        fmt::format("knowledge alloc_conf_options: {}", ctx.kb.env.alloc_options.front().source));
    out.add(problem->uncertain ? Status::warn : Status::error, name,
            fmt::format("{}={}: {}. PyTorch raises an error at its first GPU allocation when it reads this "
                        "variable. The syntax is option:value,option:value (e.g. "
                        "expandable_segments:True,max_split_size_mb:512).{}",
                        name, it->second, problem->message, where_set(ctx.facts, name)),
            evidence);
    // The value meant where the one wrong token has a near right one; PyTorch's defaults otherwise.
    if (auto right = corrected(ctx.kb.env, it->second, *problem, cuda_build))
      out.act(Action::command({{"export", std::string(name) + "=" + *right}}));
    else
      out.act(Action::command({{"unset", name}}));
  }
  if (!any) out.pass("", "no PyTorch allocator variable is set");
}

void env_alloc_conf_shadowed(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto get = [&](const char* name) -> std::optional<std::string> {
    auto it = f.env.all.find(name);
    if (it == f.env.all.end()) return std::nullopt;
    return it->second;
  };
  auto generic = get(k_generic), cuda = get(k_cuda), hip = get(k_hip);
  if (!generic && !cuda && !hip) return out.pass("", "no PyTorch allocator variable is set");
  auto builds = torches(f);
  const TorchBuild* torch = builds.empty() ? nullptr : builds.front();
  std::string torch_text = torch ? fmt::format("PyTorch {} ({})", torch->version, torch->source) : "PyTorch";
  bool rocm = f.count(Vendor::amd) > 0 || (torch && torch->hip);
  // Whether this PyTorch reads PYTORCH_ALLOC_CONF: unknown without a version.
  std::optional<bool> reads_generic;
  if (torch) reads_generic = text::compare_versions(torch->version, k_generic_since) >= 0;
  std::vector<std::string> torch_evidence;
  if (torch) torch_evidence.push_back(fmt::format("{}: version {}", torch->source, torch->version));
  bool fired = false;
  auto evidence_of = [&](std::initializer_list<const char*> names) {
    std::vector<std::string> e;
    for (const char* n : names)
      if (auto v = get(n)) e.push_back(env_evidence(ctx.facts, n, *v));
    e.insert(e.end(), torch_evidence.begin(), torch_evidence.end());
    return e;
  };
  if (generic && (cuda || hip)) {
    for (const char* name : {k_cuda, k_hip}) {
      auto v = get(name);
      if (!v) continue;
      if (*v == *generic) {
        out.pass(name, fmt::format("{} has the same value as {}", name, k_generic),
                 evidence_of({k_generic, name}));
        continue;
      }
      fired = true;
      if (reads_generic == false) {
        out.add(Status::warn, k_generic,
                fmt::format("{0} predates {1} (read from PyTorch {2}, as far as gpudoctor knows): it ignores "
                            "{1}={3} and uses {4}={5}. Put the settings you want in {4}, or upgrade PyTorch.",
                            torch_text, k_generic, k_generic_since, *generic, name, *v),
                evidence_of({k_generic, name}));
        out.act(
            Action::step(fmt::format("Put the settings you want in {} (now {}), then unset {}; or upgrade "
                                     "PyTorch.",
                                     name, *v, k_generic)));
        break;
      }
      std::string reader =
          reads_generic ? torch_text
                        : fmt::format("newer PyTorch ({}+, as far as gpudoctor knows)", k_generic_since);
      out.add(Status::warn, name,
              fmt::format("{0}={1} is ignored: {2} reads {3}={4} first and then no other allocator variable. "
                          "Merge the settings into {3} and unset {0}.",
                          name, *v, reader, k_generic, *generic),
              evidence_of({k_generic, name}));
      out.act(Action::step(fmt::format("Merge what {} sets ({}) into {} (now {}), then unset {}.", name, *v,
                                       k_generic, *generic, name)));
    }
  }
  bool generic_wins = generic && reads_generic != false;
  if (cuda && hip && !generic_wins) {
    if (!rocm) {
      out.pass(k_hip,
               fmt::format("{} is a ROCm variable and this machine has neither AMD GPUs nor a ROCm PyTorch",
                           k_hip),
               evidence_of({k_cuda, k_hip}));
    } else if (*cuda == *hip) {
      out.pass(k_hip, fmt::format("{} has the same value as {}", k_hip, k_cuda),
               evidence_of({k_cuda, k_hip}));
    } else {
      fired = true;
      out.add(
          Status::warn, k_hip,
          fmt::format("{0}={1} is ignored: on ROCm PyTorch reads {2}={3} first and {0} only when {2} is not "
                      "set. Keep one of them (the settings you want in {2}, or unset it).",
                      k_hip, *hip, k_cuda, *cuda),
          evidence_of({k_cuda, k_hip}));
      out.act(Action::step(fmt::format("Merge what {} sets ({}) into {} (now {}), then unset {}.", k_hip,
                                       *hip, k_cuda, *cuda, k_hip)));
    }
  }
  if (!fired) out.pass("", "no allocator variable hides another");
}

} // namespace gpudoctor::checks
