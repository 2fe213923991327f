// A check: a pure function of facts and knowledge to results. No I/O, no exceptions expected.
#pragma once

#include "engine/result.hpp"
#include "facts/facts.hpp"
#include "knowledge/knowledge.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct CheckContext {
  const Facts& facts;
  const Knowledge& kb;
};

using CheckFn = void (*)(const CheckContext&, Results&);

struct CheckEntry {
  const char* id;
  CheckFn run;
};

// The checks to run, in order, and why one makes no sense under WSL2 (the runner skips it there; null: it
// does). The runner is handed the table (checks/registry.hpp has gpudoctor's): src/engine never reaches up
// into the checks it runs.
struct CheckTable {
  const std::vector<CheckEntry>& checks;
  const char* (*wsl_skip_reason)(std::string_view id) = nullptr;
  // Why a check cannot be judged with these facts (an input it needs was left out for a bound); empty: it
  // can.
  std::string (*input_skip_reason)(std::string_view id, const Facts& facts) = nullptr;
};

} // namespace gpudoctor
