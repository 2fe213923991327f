// gpudoctor: the command line. Parsing lives here (CLI11 is heavy: one translation unit); each subcommand
// is a plain function in app/. Exceptions stop here: usage errors exit 2, anything else 3.
#include "app/cli_values.hpp"
#include "app/commands.hpp"
#include "cli/completion.hpp"
#include "system/lifecycle.hpp"
#include "util/escape.hpp"

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

namespace {

using namespace gpudoctor;

// An option's value may not be empty: `--from "$UNSET"` must not mean "this machine".
const CLI::Validator k_not_empty(
    [](std::string& value) { return value.empty() ? std::string("cannot be empty") : std::string(); }, "",
    "");

const CLI::Validator k_version([](std::string& value) { return version_problem(value); }, "VERSION", "");

void add_check_options(CLI::App& cmd, CheckOptions& opt, std::string& color) {
  cmd.add_option("--python", opt.pythons,
                 "Also inspect this python3 (repeatable); it is then the one in use");
  cmd.add_option("--timeout", opt.timeout_ms, "Time limit for each vendor tool, in milliseconds")
      ->check(CLI::Range(100, 600000));
  cmd.add_option("--knowledge", opt.knowledge_dir,
                 "Read knowledge tables from this folder instead of the built-in ones")
      ->check(k_not_empty);
  cmd.add_option("--color", color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd.add_option("--probe-timeout", opt.probe_timeout_ms, "Time limit for each GPU probe, in milliseconds")
      ->check(CLI::Range(1000, 600000));
}

ColorMode color_mode(const std::string& s) {
  return s == "always" ? ColorMode::always : s == "never" ? ColorMode::never : ColorMode::automatic;
}

// Options `fix` and `migrate` share (docs/fixes.md).
void add_fix_options(CLI::App& cmd, FixOptions& opt, std::string& from, std::string& color) {
  cmd.add_option("--from", from, "Plan for a snapshot (folder or bundle); the script refuses other machines")
      ->check(k_not_empty);
  cmd.add_option("--emit", opt.emit, "Write the script to this file instead of printing it")
      ->check(k_not_empty);
  cmd.add_flag("--apply", opt.apply, "Run the script step by step (sudo per step when not root)");
  cmd.add_flag("-y,--yes", opt.yes, "With --apply: do not ask first");
  cmd.add_option("--mirror", opt.mirror,
                 "Point repositories at this mirror (replaces each URL's scheme://host)");
  cmd.add_option("--driver", opt.driver, "NVIDIA driver branch to install instead of the chosen one (570)")
      ->check(k_version);
  cmd.add_option("--cuda", opt.cuda, "CUDA release to install instead of the chosen one (12.8)")
      ->check(k_version);
  cmd.add_option("--rocm", opt.rocm, "ROCm release to install instead of the chosen one (7.2)")
      ->check(k_version);
  cmd.add_option("--torch", opt.torch, "PyTorch version to install (default: the newest on the index)")
      ->check(k_version);
  cmd.add_option("--gpu", opt.gpu,
                 "The card the versions are for when it is not in the machine yet (\"RTX 3090\", 10de:2204)")
      ->check(k_not_empty);
  cmd.add_flag("--unhold", opt.unhold,
               "Release held packages of the stack being removed (default: the script stops on them)");
  cmd.add_flag("--stop-gpu-users", opt.stop_gpu_users,
               "Stop processes that use the old GPU before the purge (default: the script stops on them)");
  cmd.add_flag("--any-host", opt.any_host,
               "Do not make the script check the host name (the OS release still)");
  cmd.add_flag("--render-all", opt.render_all, "For tests: render every step, even those with nothing to do");
  cmd.add_option("--root", opt.root,
                 "For tests: the machine is the files below DIR; --apply runs in chroot DIR");
  add_check_options(cmd, opt.check, color);
}

} // namespace

int main(int argc, char** argv) {
  gpudoctor::start_lifecycle(); // first: signals, the reaper, stale temporary folders (before any thread)
  // Named, not argv[0]: the man page (help2man) and the completion script show this name.
  CLI::App app{"gpudoctor: what is wrong with this GPU machine, and how to fix it", "gpudoctor"};
  app.set_version_flag("--version", "gpudoctor " GPUDOCTOR_VERSION);
  app.require_subcommand(1);

  CheckOptions check;
  std::string check_color = "auto";
  bool list = false;
  std::string from;
  auto* check_cmd = app.add_subcommand("check", "Inspect this machine (or a snapshot) and report problems");
  check_cmd->add_option("--from", from, "Re-diagnose a snapshot: a folder or a bundle .tar.gz")
      ->check(k_not_empty);
  check_cmd->add_option("--format", check.format, "Output format: text, json, html, prometheus, junit or npd")
      ->check(CLI::IsMember({"text", "json", "html", "prometheus", "junit", "npd"}));
  // For programs (docs/fleet.md): a file replaced atomically, node-problem-detector's message length.
  check_cmd
      ->add_option("-o,--output", check.output, "Write the report to FILE (atomically) instead of stdout")
      ->check(k_not_empty);
  check_cmd
      ->add_option("--max-output-length", check.max_output_length,
                   "--format npd: fit the message in this many bytes (NPD's max_output_length, default 80)")
      ->check(CLI::Range(std::size_t{40}, std::size_t{1} << 20));
  check_cmd->add_flag("-v,--verbose", check.verbose, "Also list what passed and what was skipped");
  check_cmd->add_flag("--strict", check.strict, "Exit 1 on warnings too");
  check_cmd->add_option("--only", check.only, "Run only these check ids")->delimiter(',');
  check_cmd->add_flag("--list", list, "List every check id with its title");
  check_cmd->add_flag("--probes", check.probes, "Also build and run the GPU probes (docs/probes.md)");
  check_cmd->add_flag("--online", check.online,
                      "Also fetch each configured GPU vendor repository and wheel index (proxy, DNS, TLS)");
  add_check_options(*check_cmd, check, check_color);

  BundleOptions bundle;
  std::string bundle_color = "auto";
  auto* bundle_cmd =
      app.add_subcommand("bundle", "Record everything the checks read into one redacted archive");
  bundle_cmd->add_option("-o,--output", bundle.output, "The .tar.gz to write")->check(k_not_empty);
  bundle_cmd->add_flag("--obfuscate", bundle.obfuscate,
                       "Also replace host and user names, addresses, GPU serials and UUIDs by pseudonyms");
  bundle_cmd->add_option("--obfuscate-key", bundle.obfuscate_key,
                         "Key file of the pseudonyms (created 0600 if absent; keep it here, never send it): "
                         "a site's bundles give each host one stable pseudonym. Implies --obfuscate");
  bundle_cmd->add_flag("--probes", bundle.check.probes, "Also run the GPU probes and record their outputs");
  bundle_cmd->add_option("--upload", bundle.upload.url,
                         "Then send the archive to this https:// URL (a presigned PUT URL, or POST)");
  bundle_cmd->add_option("--upload-method", bundle.upload.method, "PUT (default) or POST")
      ->check(CLI::IsMember({"PUT", "POST"}));
  bundle_cmd->add_option("--ca-file", bundle.upload.ca_file, "Trust this CA bundle (PEM) for --upload");
  std::size_t upload_timeout_ms = 60000;
  bundle_cmd
      ->add_option("--upload-timeout", upload_timeout_ms, "Time limit of the upload in ms (default 60000)")
      ->check(CLI::Range(1000, 3600000));
  bundle_cmd->add_option("--root", bundle.root,
                         "For tests: record the machine of fix --root DIR (its files; no command is run)");
  add_check_options(*bundle_cmd, bundle.check, bundle_color);

  CheckOptions probe;
  std::string probe_color = "auto", probe_from;
  auto* probe_cmd = app.add_subcommand("probe", "Build and run the GPU probes and judge what they measure");
  probe_cmd->add_option("--from", probe_from, "Re-judge the probe outputs a snapshot recorded")
      ->check(k_not_empty);
  probe_cmd->add_option("--format", probe.format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  probe_cmd->add_flag("-v,--verbose", probe.verbose, "Also list what passed and what was skipped");
  probe_cmd->add_flag("--strict", probe.strict, "Exit 1 on warnings too");
  add_check_options(*probe_cmd, probe, probe_color);

  std::string explain_id;
  auto* explain_cmd =
      app.add_subcommand("explain", "Say what a check looks at, why it matters and how to fix it");
  explain_cmd->add_option("id", explain_id, "A check id (gpudoctor check --list) or fix id")->required();

  FixOptions fix;
  std::string fix_from, fix_color = "auto";
  auto* fix_cmd =
      app.add_subcommand("fix", "List the fixes for this machine, or print (or apply) one's script");
  fix_cmd->add_option("id", fix.id, "The fix (gpudoctor fix without an id lists them)");
  add_fix_options(*fix_cmd, fix, fix_from, fix_color);

  MigrateOptions migrate;
  std::string migrate_from, migrate_color = "auto";
  auto* migrate_cmd =
      app.add_subcommand("migrate", "One staged plan to move this machine to the other vendor");
  migrate_cmd->add_option("--to", migrate.to, "nvidia or amd")->check(CLI::IsMember({"nvidia", "amd"}));
  migrate_cmd->add_flag("--resume", migrate.resume, "Continue the applied migration after its reboot");
  migrate_cmd->add_flag("--remove-stack-of-present-gpu", migrate.remove_present_stack,
                        "With GPUs of both vendors in the machine: remove the old stack all the same");
  add_fix_options(*migrate_cmd, migrate.fix, migrate_from, migrate_color);

  UndoOptions undo;
  auto* undo_cmd = app.add_subcommand(
      "undo", "Restore the files the last --apply edited; say how to reinstall what it removed");
  undo_cmd->add_flag("-y,--yes", undo.yes, "Do not ask first");
  undo_cmd->add_option("--root", undo.root, "For tests: the root the apply ran in (fix --root)");

  // fleet and diff: many nodes compared, and one machine's two reports (docs/fleet.md, "Comparing nodes").
  FleetOptions fleet;
  std::string fleet_color = "auto";
  auto* fleet_cmd = app.add_subcommand(
      "fleet", "Compare many nodes' reports: what differs, the odd ones out, who fails what");
  fleet_cmd
      ->add_option("paths", fleet.paths, "Reports (.json), bundles, snapshot folders, or folders of them")
      ->required()
      ->check(k_not_empty);
  fleet_cmd->add_option("--format", fleet.format, "Output format: text, json or html")
      ->check(CLI::IsMember({"text", "json", "html"}));
  fleet_cmd
      ->add_option("-o,--output", fleet.output, "Write to this file (replaced atomically) instead of stdout")
      ->check(k_not_empty);
  fleet_cmd->add_flag("-v,--verbose", fleet.verbose, "List every node, every name and what agrees");
  fleet_cmd->add_flag("--strict", fleet.strict, "Exit 1 on a warning or a drifting property too");
  fleet_cmd->add_flag("--rejudge", fleet.rejudge,
                      "Judge snapshots and bundles with this gpudoctor instead of reading their report.json");
  fleet_cmd->add_option("-j,--jobs", fleet.jobs, "Reading threads (default: one per core)")
      ->check(CLI::Range(1, 256));
  fleet_cmd->add_option("--color", fleet_color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  DiffOptions diff;
  std::string diff_color = "auto";
  auto* diff_cmd =
      app.add_subcommand("diff", "What changed on one machine between two snapshots, bundles or reports");
  diff_cmd->add_option("before", diff.before, "The earlier snapshot, bundle or report")
      ->required()
      ->check(k_not_empty);
  diff_cmd->add_option("after", diff.after, "The later one")->required()->check(k_not_empty);
  diff_cmd->add_option("--format", diff.format, "Output format: text, json or html")
      ->check(CLI::IsMember({"text", "json", "html"}));
  diff_cmd
      ->add_option("-o,--output", diff.output, "Write to this file (replaced atomically) instead of stdout")
      ->check(k_not_empty);
  diff_cmd->add_flag("--force", diff.force,
                     "Compare even when the two are not one machine (another host name, no GPU in common)");
  diff_cmd->add_option("--color", diff_color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  // Hidden (no group): the bash completion script, generated from the subcommands and options above, at
  // build time for the package (cmake/packaging.cmake).
  std::string completion_shell;
  auto* completion_cmd = app.add_subcommand("completion", "Print a shell completion script")->group("");
  completion_cmd->add_option("shell", completion_shell, "bash")->required()->check(CLI::IsMember({"bash"}));

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
    if (*bundle_cmd) {
      bundle.upload.timeout = std::chrono::milliseconds(upload_timeout_ms);
      return cmd_bundle(bundle);
    }
    if (*probe_cmd) {
      if (!probe_from.empty()) probe.from = probe_from;
      probe.color = color_mode(probe_color);
      return cmd_probe(probe);
    }
    if (*explain_cmd) return cmd_explain(explain_id);
    if (*fix_cmd) {
      if (!fix_from.empty()) fix.from = fix_from;
      return cmd_fix(fix);
    }
    if (*migrate_cmd) {
      if (!migrate_from.empty()) migrate.fix.from = migrate_from;
      if (migrate.to.empty() && !migrate.resume) {
        std::fprintf(stderr, "gpudoctor: migrate needs --to nvidia|amd (or --resume)\n");
        return 2;
      }
      return cmd_migrate(migrate);
    }
    if (*undo_cmd) return cmd_undo(undo);
    if (*fleet_cmd) {
      fleet.color = color_mode(fleet_color);
      return cmd_fleet(fleet);
    }
    if (*diff_cmd) {
      diff.color = color_mode(diff_color);
      return cmd_diff(diff);
    }
    if (*completion_cmd) {
      std::fputs(cli::bash_completion(app).c_str(), stdout);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpudoctor: internal error: %s\n", escape::one_line(e.what()).c_str());
    return 3;
  }
  return 2;
}
