// JSON of the configuration facts (repositories, DKMS and Secure Boot, GPU-stack paths, containers): part of
// the report's "facts" (facts_json.cpp).
#pragma once

#include "facts/facts.hpp"
#include "util/json.hpp"

namespace gpudoctor {

Json repos_to_json(const RepoFacts& r);
Json boot_to_json(const BootFacts& b);
Json stack_paths_to_json(const PathFacts& p);
Json containers_to_json(const ContainerFacts& c);

} // namespace gpudoctor
