// What the command line accepts as a value, beyond its type: checked when the options are parsed, so a bad
// value is exit 2 naming the option (shared/spec/report-v1.md) before anything runs.
#pragma once

#include <string>
#include <string_view>

namespace gpudoctor {

// A version as --driver, --cuda, --rocm and --torch take it: 1 to 4 numbers of 1 to 6 digits, separated by
// dots ("570", "570.124.06", "12.8", "2.6.0"). Nothing else reaches a plan or a script.
bool is_version_text(std::string_view s);

// What is wrong with `value` as a version (CLI11 puts the option's name before it); empty when it is one.
std::string version_problem(const std::string& value);

} // namespace gpudoctor
