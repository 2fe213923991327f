// What `fix` and `migrate --help` say of --driver, --cuda and --rocm: the versions the planner picks, read
// from the tables it picks them from (fixes/stacks.yaml, checks/knowledge/cuda.yaml) when the help is shown,
// never written into the help text (they change with the tables).
#pragma once

#include <string>

namespace gpudoctor {

struct VersionHelp {
  std::string driver, cuda, rocm; // the options' descriptions
};

// The descriptions for a plan with no GPU to narrow the choice; with the tables unreadable, the rule alone.
VersionHelp version_help();

} // namespace gpudoctor
