// The renderer: a plan -> one plain bash script (header saying what, why, for which machine and by which
// gpudoctor; the preflight; the script library; one function per step and one per check of a step).
#pragma once

#include "fix/plan.hpp"

#include <string>

namespace gpudoctor::fix {

struct Script {
  std::string id; // "purge-rocm-1f2e3d4c": the journal and backup folder are named after it
  std::string text;
};

// `library`: fixes/lib.bash. `version`: gpudoctor's. The id hashes the script, so the same plan always
// renders the same bytes (golden files) and a changed plan gets a new journal.
Script render_script(const Plan& plan, const std::string& library, const std::string& version);
// The bash arrays every script starts with that name the files gd_clean_profiles edits, from the
// configuration table (system/config_files.hpp): GD_PROFILE_HOME_FILES (relative to a home, "/.bashrc")
// and GD_PROFILE_SYSTEM_FILES (a folder's files as "/etc/profile.d/*.sh").
std::string profile_file_vars();

// A short listing of the plan for people (what --apply shows before asking).
std::string render_plan_summary(const Plan& plan);

} // namespace gpudoctor::fix
