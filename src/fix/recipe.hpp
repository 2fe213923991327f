// Recipes: remediation as data (fixes/*.yaml). A recipe names the vendor whose stack it acts on, and its
// steps; each step is bash for a distribution family (or for all), with flags (needs root, destructive, needs
// a reboot) and a check that it took effect. Schema: docs/fixes.md.
#pragma once

#include <expected>
#include <string>
#include <vector>

namespace gpudoctor::fix {

enum class Family { debian, rhel };
std::string family_name(Family f);

struct Step {
  std::string id, title;
  bool root = false, destructive = false, reboot = false;
  // "prepare": runs before every other step of the plan (sources and keys, holds: what the downloads need);
  // "cleanup": after the others, before the reboot (what only the installs can tell is no longer needed);
  // "after-reboot": after the reboot (what only the next boot can show: the module loaded).
  std::string stage;
  std::vector<std::string> when; // included when any of these parameters is non-empty (empty: always)
  std::vector<std::string> destructive_when; // destructive where one of these is non-empty (what it purges)
  std::string when_system_sets;  // included when a system-wide profile sets a variable matching this
  std::string run, debian, rhel; // bash: for every family, or per family (which wins over run)
  std::string verify, debian_verify, rhel_verify;
  std::string where; // "fixes/purge-rocm.yaml:14"

  // The bash of this step for a family; empty when the step has none there.
  const std::string& body(Family f) const;
  const std::string& verify_for(Family f) const;
};

struct Recipe {
  std::string id, title, description;
  std::string vendor; // "", "amd", "nvidia", "absent" (the vendor without GPUs), "present" (with GPUs)
  std::vector<std::string> include; // recipes whose steps follow this one's
  // An ERE of the variables the recipe takes out of the profiles: a plan notes those set here that no
  // profile gpudoctor read sets, which its profile steps would leave (they come from elsewhere).
  std::string unsets;
  std::vector<Step> steps;
  std::string file;

  bool has_steps_for(Family f) const;
};

struct Migration {
  std::string to;                     // "nvidia", "amd"
  std::vector<std::string> recipes;   // in order
  std::vector<std::string> must_pass; // check ids gpudoctor check must pass afterwards
};

struct RecipeBook {
  std::vector<Recipe> recipes;
  std::vector<Migration> migrations;
  Step check_step;     // the last step of a migration
  Step download_step;  // after the prepare steps of a plan that installs or removes: everything downloaded
  std::string library; // fixes/lib.bash, copied into every script

  const Recipe* find(const std::string& id) const;
  const Migration* migration(const std::string& to) const;
};

// Loads fixes/*.yaml (every file but catalogue.yaml, stacks.yaml and migrate.yaml is one recipe),
// fixes/migrate.yaml and fixes/lib.bash: the copies built into the binary, or those below `source_dir`.
// Placeholders ({{name}}, {{!name}}) must name parameters of params.hpp. Errors name the file and line.
std::expected<RecipeBook, std::string> load_recipes(const std::string& source_dir = {});

} // namespace gpudoctor::fix
