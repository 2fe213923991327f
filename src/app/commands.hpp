// The subcommands, independent of the command-line parser (main.cpp owns CLI11).
// Each returns the process exit status of shared/spec/report-v1.md: 0 ok, 1 problems, 2 bad input, 3 internal.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

enum class ColorMode { automatic, always, never };

struct CheckOptions {
  std::optional<std::string> from; // snapshot folder or .tar.gz
  std::string format = "text";     // text | json
  bool verbose = false;
  bool strict = false;
  std::vector<std::string> only;    // check ids
  std::vector<std::string> pythons; // --python
  int timeout_ms = 5000;            // per vendor tool
  ColorMode color = ColorMode::automatic;
  std::string knowledge_dir; // empty: built in
};

struct BundleOptions {
  std::string output; // .tar.gz path; empty: gpudoctor-bundle-<host>-<time>.tar.gz
  bool obfuscate = false;
  CheckOptions check;
};

int cmd_check(const CheckOptions& opt);
int cmd_list_checks();
int cmd_explain(const std::string& id);
int cmd_bundle(const BundleOptions& opt);

} // namespace gpudoctor
