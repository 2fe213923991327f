// gpudoctor: the command line. Parsing lives here (CLI11 is heavy: one translation unit); each subcommand
// is a plain function in app/. Exceptions stop here: usage errors exit 2, anything else 3.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "app/commands.hpp"

namespace {

using namespace gpudoctor;

void add_check_options(CLI::App& cmd, CheckOptions& opt, std::string& color) {
  cmd.add_option("--python", opt.pythons, "Also inspect this python3 (repeatable); it is then the one in use");
  cmd.add_option("--timeout", opt.timeout_ms, "Time limit for each vendor tool, in milliseconds")
      ->check(CLI::Range(100, 600000));
  cmd.add_option("--knowledge", opt.knowledge_dir, "Read knowledge tables from this folder instead of the built-in ones");
  cmd.add_option("--color", color, "Colour: auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
}

ColorMode color_mode(const std::string& s) {
  return s == "always" ? ColorMode::always : s == "never" ? ColorMode::never : ColorMode::automatic;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpudoctor: what is wrong with this GPU machine, and how to fix it"};
  app.set_version_flag("--version", "gpudoctor " GPUDOCTOR_VERSION);
  app.require_subcommand(1);

  CheckOptions check;
  std::string check_color = "auto";
  bool list = false;
  std::string from;
  auto* check_cmd = app.add_subcommand("check", "Inspect this machine (or a snapshot) and report problems");
  check_cmd->add_option("--from", from, "Re-diagnose a snapshot: a folder or a bundle .tar.gz");
  check_cmd->add_option("--format", check.format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  check_cmd->add_flag("-v,--verbose", check.verbose, "Also list what passed and what was skipped");
  check_cmd->add_flag("--strict", check.strict, "Exit 1 on warnings too");
  check_cmd->add_option("--only", check.only, "Run only these check ids")->delimiter(',');
  check_cmd->add_flag("--list", list, "List every check id with its title");
  add_check_options(*check_cmd, check, check_color);

  BundleOptions bundle;
  std::string bundle_color = "auto";
  auto* bundle_cmd = app.add_subcommand("bundle", "Record everything the checks read into one redacted archive");
  bundle_cmd->add_option("-o,--output", bundle.output, "The .tar.gz to write");
  bundle_cmd->add_flag("--obfuscate", bundle.obfuscate, "Also replace the hostname and user name");
  add_check_options(*bundle_cmd, bundle.check, bundle_color);

  std::string explain_id;
  auto* explain_cmd = app.add_subcommand("explain", "Say what a check looks at, why it matters and how to fix it");
  explain_cmd->add_option("id", explain_id, "A check id (gpudoctor check --list) or fix id")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (*check_cmd) {
      if (list) return cmd_list_checks();
      if (!from.empty()) check.from = from;
      check.color = color_mode(check_color);
      return cmd_check(check);
    }
    if (*bundle_cmd) return cmd_bundle(bundle);
    if (*explain_cmd) return cmd_explain(explain_id);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpudoctor: internal error: %s\n", e.what());
    return 3;
  }
  return 2;
}
