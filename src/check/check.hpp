// A check: a pure function of facts and knowledge to results. No I/O, no exceptions expected.
#pragma once

#include "check/result.hpp"
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

// Every check, in the order they run; defined in checks/registry.cpp.
const std::vector<CheckEntry>& check_registry();
// Why a check makes no sense under WSL2 (the runner skips it there), or null; defined in checks/wsl.cpp.
const char* wsl_skip_reason(std::string_view id);

} // namespace gpudoctor
