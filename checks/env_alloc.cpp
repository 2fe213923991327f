// env.alloc-conf-invalid, env.alloc-conf-shadowed: PyTorch's caching-allocator settings (knowledge.md §5.4,
// checks/knowledge/pytorch_env.yaml).
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

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
  bool uncertain = false; // the option's row is uncertain
};

class Parser {
public:
  Parser(const EnvKnowledge& k, std::vector<std::string> toks, bool cuda_build)
      : k_(k), t_(std::move(toks)), cuda_build_(cuda_build) {}

  std::optional<Problem> run() {
    for (i_ = 0; i_ < t_.size(); ++i_) {
      const std::string& key = t_[i_];
      if (key == "," || key == ":" || key == "[" || key == "]")
        return Problem{"\"" + key + "\" where an option name belongs"};
      const AllocOptionRow* row = k_.alloc_option(key);
      if (!row) {
        auto near = k_.alloc_closest(key, 3);
        return Problem{"\"" + key +
                       "\" is not an allocator option: PyTorch stops with \"Unrecognized "
                       "CachingAllocator option\"" +
                       (near.empty() ? "" : " (did you mean " + near.front() + "?)")};
      }
      if (!next_is(":")) return Problem{"option " + key + " needs \":value\""};
      i_ += 2;
      if (i_ >= t_.size()) return Problem{"option " + key + " has no value"};
      if (auto p = value(*row)) {
        p->uncertain = row->uncertain;
        return p;
      }
      if (i_ + 1 < t_.size()) {
        if (t_[i_ + 1] != ",")
          return Problem{"expected \",\" after the value of " + key + ", found \"" + t_[i_ + 1] + "\""};
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

  std::optional<Problem> value(const AllocOptionRow& row) {
    const std::string& v = t_[i_];
    const std::string& o = row.option;
    if (row.kind == "divisions") return divisions(o);
    if (v == "," || v == ":" || v == "[" || v == "]") return Problem{"option " + o + " has no value"};
    if (row.kind == "bool") {
      if (v == "True" || v == "False") return std::nullopt;
      return Problem{o + ":" + v + " must be True or False (with a capital letter)"};
    }
    if (row.kind == "enum") {
      if (std::ranges::find(row.values, v) == row.values.end())
        return Problem{o + ":" + v + " is not one of " + text::join(row.values, ", ")};
      if (v == "hipMallocAsync" && cuda_build_)
        return Problem{o + ":hipMallocAsync is only for ROCm builds of PyTorch; this one is a CUDA build"};
      return std::nullopt;
    }
    if (row.kind == "fraction") {
      auto d = leading_double(v);
      if (!d) return Problem{o + ":" + v + " is not a number"};
      if (!(*d > 0.0 && *d < 1.0)) return Problem{o + ":" + v + " must be between 0 and 1 (both excluded)"};
      return std::nullopt;
    }
    auto n = leading_uint(v);
    if (!n) return Problem{o + ":" + v + " is not a whole number"};
    if (row.kind == "size_mb" && row.min && *n < static_cast<unsigned long long>(*row.min))
      return Problem{o + ":" + v + " is too small: PyTorch wants at least " + std::to_string(*row.min) +
                     " (MB)"};
    if (row.kind == "power_of_two" && !power_of_two(*n))
      return Problem{o + ":" + v + " must be a power of two"};
    if (row.max && *n > static_cast<unsigned long long>(*row.max))
      return Problem{o + ":" + v + " is above " + std::to_string(*row.max)};
    if (row.kind == "positive_int" && *n == 0) return Problem{o + ":" + v + " must be greater than 0"};
    return std::nullopt;
  }

  // A power of two, or [size:divisions,...,>:divisions] with power-of-two sizes and power-of-two (or 0)
  // divisions.
  std::optional<Problem> divisions(const std::string& o) {
    if (t_[i_] != "[") {
      auto n = leading_uint(t_[i_]);
      if (!n || !power_of_two(*n))
        return Problem{o + ":" + t_[i_] + " must be a power of two, or a [size:divisions,...] list"};
      return std::nullopt;
    }
    while (true) {
      ++i_;
      if (i_ >= t_.size()) return Problem{o + " has a list without its closing \"]\""};
      if (t_[i_] == "]") return std::nullopt;
      const std::string& size = t_[i_];
      if (size != ">") {
        auto s = leading_uint(size);
        if (!s || !power_of_two(*s))
          return Problem{o + ": the size " + size + " must be a power of two (MB) or \">\""};
      }
      if (!next_is(":")) return Problem{o + ": the size " + size + " needs \":divisions\""};
      i_ += 2;
      if (i_ >= t_.size()) return Problem{o + " has a list without its closing \"]\""};
      auto d = leading_uint(t_[i_]);
      if (!d || (*d != 0 && !power_of_two(*d)))
        return Problem{o + ": the divisions " + t_[i_] + " must be a power of two, or 0"};
      if (next_is("]")) continue;
      if (!next_is(",")) return Problem{o + " has a list without its closing \"]\""};
      ++i_;
    }
  }
};

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
    std::vector<std::string> evidence = {env_evidence(name, it->second)};
    auto problem = Parser(ctx.kb.env, tokens(it->second), cuda_build).run();
    if (!problem) {
      out.pass(name, std::string(name) + "=" + it->second + " parses", evidence);
      continue;
    }
    evidence.push_back("knowledge alloc_conf_options: " + ctx.kb.env.alloc_options.front().source);
    out.add(problem->uncertain ? Status::warn : Status::error, name,
            std::string(name) + "=" + it->second + ": " + problem->message +
                ". PyTorch raises an error at its first GPU allocation when it reads this variable. The "
                "syntax is "
                "option:value,option:value (e.g. expandable_segments:True,max_split_size_mb:512).",
            evidence);
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
  std::string torch_text = torch ? "PyTorch " + torch->version + " (" + torch->source + ")" : "PyTorch";
  bool rocm = f.count(Vendor::amd) > 0 || (torch && torch->hip);
  // Whether this PyTorch reads PYTORCH_ALLOC_CONF: unknown without a version.
  std::optional<bool> reads_generic;
  if (torch) reads_generic = text::compare_versions(torch->version, k_generic_since) >= 0;
  std::vector<std::string> torch_evidence;
  if (torch) torch_evidence.push_back(torch->source + ": version " + torch->version);
  bool fired = false;
  auto evidence_of = [&](std::initializer_list<const char*> names) {
    std::vector<std::string> e;
    for (const char* n : names)
      if (auto v = get(n)) e.push_back(env_evidence(n, *v));
    e.insert(e.end(), torch_evidence.begin(), torch_evidence.end());
    return e;
  };
  if (generic && (cuda || hip)) {
    for (const char* name : {k_cuda, k_hip}) {
      auto v = get(name);
      if (!v) continue;
      if (*v == *generic) {
        out.pass(name, std::string(name) + " has the same value as " + k_generic,
                 evidence_of({k_generic, name}));
        continue;
      }
      fired = true;
      if (reads_generic == false) {
        out.add(Status::warn, k_generic,
                torch_text + " predates " + k_generic + " (read from PyTorch " + k_generic_since +
                    ", as far as gpudoctor knows): it ignores " + k_generic + "=" + *generic + " and uses " +
                    name + "=" + *v + ". Put the settings you want in " + name + ", or upgrade PyTorch.",
                evidence_of({k_generic, name}));
        break;
      }
      out.add(Status::warn, name,
              std::string(name) + "=" + *v + " is ignored: " +
                  (reads_generic ? torch_text
                                 : "newer PyTorch (" + std::string(k_generic_since) +
                                       "+, as far as "
                                       "gpudoctor knows)") +
                  " reads " + k_generic + "=" + *generic +
                  " first and then no other allocator variable. Merge the "
                  "settings into " +
                  k_generic + " and unset " + name + ".",
              evidence_of({k_generic, name}));
    }
  }
  bool generic_wins = generic && reads_generic != false;
  if (cuda && hip && !generic_wins) {
    if (!rocm) {
      out.pass(k_hip,
               std::string(k_hip) + " is a ROCm variable and this machine has neither AMD GPUs nor a ROCm "
                                    "PyTorch",
               evidence_of({k_cuda, k_hip}));
    } else if (*cuda == *hip) {
      out.pass(k_hip, std::string(k_hip) + " has the same value as " + k_cuda, evidence_of({k_cuda, k_hip}));
    } else {
      fired = true;
      out.add(Status::warn, k_hip,
              std::string(k_hip) + "=" + *hip + " is ignored: on ROCm PyTorch reads " + k_cuda + "=" + *cuda +
                  " first and " + k_hip + " only when " + k_cuda +
                  " is not set. Keep one of them (the settings "
                  "you want in " +
                  k_cuda + ", or unset it).",
              evidence_of({k_cuda, k_hip}));
    }
  }
  if (!fired) out.pass("", "no allocator variable hides another");
}

} // namespace gpudoctor::checks
