// gpudoctor: the command line. Parsing lives here (CLI11 is heavy: one translation unit); each subcommand
// is a plain function in app/. The subcommands are one table (k_subcommands): name, help line, options and
// what runs it; the parser, --help and the bash completion (cli/completion.cpp) are all made from it.
// Exceptions stop here: usage errors exit 2, anything else 3; a subcommand's failure is said here, once.
#include "app/cli_values.hpp"
#include "app/commands.hpp"
#include "app/root_handoff.hpp"
#include "app/version_help.hpp"
#include "cli/completion.hpp"
#include "engine/catalogue.hpp"
#include "system/lifecycle.hpp"
#include "system/terminal.hpp"
#include "util/build_info.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"
#include "util/suggest.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace {

using namespace gpudoctor;

// An option's value may not be empty: `--from "$UNSET"` must not mean "this machine".
const CLI::Validator k_not_empty(
    [](std::string& value) { return value.empty() ? std::string("cannot be empty") : std::string(); }, "",
    "");

const CLI::Validator k_version([](std::string& value) { return version_problem(value); }, "VERSION", "");

// Every option's value. One subcommand runs, so subcommands share `from`, `color` and `events`.
struct Values {
  std::string from;
  std::string color = "auto";
  std::string events = "text";
  CheckOptions check;
  bool list = false;
  BundleOptions bundle;
  std::size_t upload_timeout_ms = 60000;
  CheckOptions probe;
  std::string explain_id;
  FixOptions fix;
  MigrateOptions migrate;
  UndoOptions undo;
  FleetOptions fleet;
  DiffOptions diff;
  HistoryOptions history;
  std::string completion_shell;
};

// --events: how an apply, resume, finish or undo reports what goes on (docs/fixes.md, "Events").
void add_events(CLI::App& cmd, std::string& events) {
  cmd.add_option("--events", events,
                 "text (default) or json: one JSON line per event on stdout (needs --yes)")
      ->check(CLI::IsMember({"text", "json"}));
}

EventsFormat events_format(const std::string& s) {
  return s == "json" ? EventsFormat::json : EventsFormat::text;
}

ColorMode color_mode(const std::string& s) {
  return s == "always" ? ColorMode::always : s == "never" ? ColorMode::never : ColorMode::automatic;
}

void add_color(CLI::App& cmd, Values& v) {
  cmd.add_option("--color", v.color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void add_format(CLI::App& cmd, std::string& format, std::vector<std::string> choices) {
  std::string help = "Output format: " + choices.front();
  for (std::size_t i = 1; i < choices.size(); ++i)
    help += (i + 1 == choices.size() ? " or " : ", ") + choices[i];
  cmd.add_option("--format", format, help)->check(CLI::IsMember(choices));
}

void add_output(CLI::App& cmd, std::string& output, const char* help) {
  cmd.add_option("-o,--output", output, help)->type_name("FILE")->check(k_not_empty);
}

void add_from(CLI::App& cmd, Values& v, const char* help) {
  cmd.add_option("--from", v.from, help)->type_name("PATH")->check(k_not_empty);
}

// check and probe: node_exporter's textfile (docs/fleet.md).
void add_textfile(CLI::App& cmd, std::string& file, const char* help) {
  cmd.add_option("--textfile", file, help)->type_name("FILE")->check(k_not_empty);
}

// check, history, diff: the history folder instead of root's (for a user's own, and the tests).
void add_history_dir(CLI::App& cmd, std::string& dir, const char* help) {
  cmd.add_option("--history-dir", dir, help)->type_name("DIR")->check(k_not_empty);
}

// check and probe, as dcgmi diag -i: not on fix and migrate, where --gpu names the card a plan is for.
void add_gpus(CLI::App& cmd, CheckOptions& opt) {
  cmd.add_option(
         "-i,--gpus", opt.gpus,
         "Only these GPUs' results (comma-separated): index (0), PCI address (0000:41:00.0), UUID (GPU-..., "
         "MIG-...); machine-wide checks still run")
      ->type_name("LIST")
      ->delimiter(',');
}

// What every subcommand that judges a machine takes (check, bundle, probe, fix, migrate).
void add_check_options(CLI::App& cmd, CheckOptions& opt, Values& v) {
  cmd.add_option("--python", opt.pythons, "Also inspect this python3 (repeatable); it is then the one in use")
      ->type_name("FILE");
  cmd.add_option("--timeout", opt.timeout_ms, "Time limit for each vendor tool, in milliseconds")
      ->check(CLI::Range(100, 600000));
  cmd.add_option("--knowledge", opt.knowledge_dir,
                 "Read knowledge tables from this folder instead of the built-in ones")
      ->type_name("DIR")
      ->check(k_not_empty);
  add_color(cmd, v);
  cmd.add_option("--probe-timeout", opt.probe_timeout_ms, "Time limit for each GPU probe, in milliseconds")
      ->check(CLI::Range(1000, 600000));
}

void add_check(CLI::App& cmd, Values& v) {
  CheckOptions& c = v.check;
  add_from(cmd, v, "Re-diagnose a snapshot: a folder or a bundle .tar.gz");
  add_format(cmd, c.format, {"text", "json", "html", "prometheus", "junit", "npd"});
  // For programs (docs/fleet.md): a file replaced atomically, node-problem-detector's message length.
  add_output(cmd, c.output, "Write the report to FILE (atomically) instead of stdout");
  cmd.add_option("--max-output-length", c.max_output_length,
                 "--format npd: fit the message in this many bytes (NPD's max_output_length, default 80)")
      ->check(CLI::Range(std::size_t{40}, std::size_t{1} << 20));
  cmd.add_flag("-v,--verbose", c.verbose, "Also list what passed and what was skipped");
  cmd.add_flag("--strict", c.strict, "Exit 1 on warnings too");
  cmd.add_option("--only", c.only, "Run only these check ids (comma-separated)")
      ->type_name("CHECK_ID")
      ->delimiter(',');
  add_gpus(cmd, c);
  cmd.add_flag("--list", v.list, "List every check id with its title");
  cmd.add_flag("--probes", c.probes, "Also build and run the GPU probes (docs/probes.md)");
  cmd.add_flag("--online", c.online,
               "Also fetch each configured GPU vendor repository and wheel index (proxy, DNS, TLS)");
  add_check_options(cmd, c, v);
  // The node's history and the timer (docs/fleet.md, "History").
  cmd.add_flag("--history", c.history,
               "Also keep the JSON report, redacted, in this machine's history (root's: "
               "/var/lib/gpudoctor/history)");
  add_history_dir(cmd, c.history_dir, "With --history: keep it in DIR instead (your own folder)");
  cmd.add_option("--history-max-reports", c.history_max_reports,
                 "With --history: keep at most this many reports (default 1000; the newest without an error "
                 "is kept too)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  cmd.add_option("--history-max-mib", c.history_max_mib,
                 "With --history: keep at most this many MiB of reports (default 64)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  add_textfile(cmd, c.textfile,
               "Also write the Prometheus metrics to FILE (atomically, 0644) where its folder exists: "
               "node_exporter's textfile folder");
}

Outcome run_check(Values& v, CLI::App&) {
  if (v.list) return cmd_list_checks();
  if (!v.from.empty()) v.check.from = v.from;
  v.check.color = color_mode(v.color);
  return cmd_check(v.check);
}

void add_bundle(CLI::App& cmd, Values& v) {
  BundleOptions& b = v.bundle;
  add_output(cmd, b.output, "The .tar.gz to write");
  cmd.add_flag("--obfuscate", b.obfuscate,
               "Also replace host and user names, addresses, GPU serials and UUIDs by pseudonyms");
  cmd.add_option("--obfuscate-key", b.obfuscate_key,
                 "Key file of the pseudonyms (created 0600 if absent; keep it here, never send it): "
                 "a site's bundles give each host one stable pseudonym. Implies --obfuscate")
      ->type_name("FILE");
  cmd.add_flag("--probes", b.check.probes, "Also run the GPU probes and record their outputs");
  cmd.add_option("--upload", b.upload.url,
                 "Then send the archive to this https:// URL (a presigned PUT URL, or POST)")
      ->type_name("URL");
  cmd.add_option("--upload-method", b.upload.method, "PUT (default) or POST")
      ->check(CLI::IsMember({"PUT", "POST"}));
  cmd.add_option("--ca-file", b.upload.ca_file, "Trust this CA bundle (PEM) for --upload")->type_name("FILE");
  cmd.add_option("--upload-timeout", v.upload_timeout_ms, "Time limit of the upload in ms (default 60000)")
      ->check(CLI::Range(1000, 3600000));
  cmd.add_option("--root", b.root,
                 "For tests: record the machine of fix --root DIR (its files; no command is run)")
      ->type_name("DIR");
  add_check_options(cmd, b.check, v);
}

Outcome run_bundle(Values& v, CLI::App&) {
  v.bundle.upload.timeout = std::chrono::milliseconds(v.upload_timeout_ms);
  return cmd_bundle(v.bundle);
}

void add_probe(CLI::App& cmd, Values& v) {
  add_from(cmd, v, "Re-judge the probe outputs a snapshot recorded");
  add_format(cmd, v.probe.format, {"text", "json"});
  add_gpus(cmd, v.probe);
  cmd.add_flag("-v,--verbose", v.probe.verbose, "Also list what passed and what was skipped");
  cmd.add_flag("--strict", v.probe.strict, "Exit 1 on warnings too");
  cmd.add_option("--backend", v.probe.probe_backends,
                 "Compile these probes (cuda, hip; repeatable) even without a GPU or driver of their vendor")
      ->check(CLI::IsMember({"cuda", "hip"}));
  add_textfile(cmd, v.probe.textfile,
               "Also write the probe figures for Prometheus to FILE (0644) where its folder exists, beside "
               "the timer's (gpudoctor-probe.prom)");
  cmd.add_flag("--if-idle", v.probe.if_idle,
               "Run no probe while a GPU is busy (compute processes, utilization above 10 %): exit 0, said");
  add_check_options(cmd, v.probe, v);
}

Outcome run_probe(Values& v, CLI::App&) {
  if (!v.from.empty()) v.probe.from = v.from;
  v.probe.color = color_mode(v.color);
  return cmd_probe(v.probe);
}

void add_explain(CLI::App& cmd, Values& v) {
  cmd.add_option("id", v.explain_id, "A check id or fix id (without one: the ids and their titles)")
      ->type_name("ID");
}

Outcome run_explain(Values& v, CLI::App&) {
  return cmd_explain(v.explain_id);
}

// Options `fix` and `migrate` share (docs/fixes.md).
void add_fix_options(CLI::App& cmd, FixOptions& opt, Values& v) {
  add_from(cmd, v, "Plan for a snapshot (folder or bundle); the script refuses other machines");
  cmd.add_option("--emit", opt.emit, "Write the script to this file instead of printing it")
      ->type_name("FILE")
      ->check(k_not_empty);
  cmd.add_flag("--apply", opt.apply,
               "Run the script step by step (steps that need root: gpudoctor runs itself through sudo)");
  cmd.add_flag("-y,--yes", opt.yes, "With --apply: do not ask first");
  add_events(cmd, v.events);
  cmd.add_option("--mirror", opt.mirror,
                 "Point repositories at this mirror (replaces each URL's scheme://host)")
      ->type_name("URL");
  // The descriptions name the versions the planner picks only when help is shown (describe_versions).
  cmd.add_option("--driver", opt.driver, "NVIDIA driver branch to install instead of the chosen one")
      ->check(k_version);
  cmd.add_option("--cuda", opt.cuda, "CUDA release to install instead of the chosen one")->check(k_version);
  cmd.add_option("--rocm", opt.rocm, "ROCm release to install instead of the chosen one")->check(k_version);
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
                 "For tests: the machine is the files below DIR; --apply runs in chroot DIR")
      ->type_name("DIR");
  add_check_options(cmd, opt.check, v);
}

void add_fix(CLI::App& cmd, Values& v) {
  cmd.add_option("id", v.fix.id, "The fix (gpudoctor fix without an id lists them)")->type_name("FIX_ID");
  add_fix_options(cmd, v.fix, v);
}

Outcome run_fix(Values& v, CLI::App&) {
  if (!v.from.empty()) v.fix.from = v.from;
  v.fix.events = events_format(v.events);
  return cmd_fix(v.fix);
}

void add_migrate(CLI::App& cmd, Values& v) {
  cmd.add_option("--to", v.migrate.to, "nvidia or amd")->check(CLI::IsMember({"nvidia", "amd"}));
  cmd.add_flag("--resume", v.migrate.resume,
               "Continue the machine's unfinished migration (after its reboot, or a failure)");
  cmd.add_flag("--finish", v.migrate.finish,
               "After a good boot: close the migration that ran to its end and free its undo cache");
  cmd.add_flag("--remove-stack-of-present-gpu", v.migrate.remove_present_stack,
               "With GPUs of both vendors in the machine: remove the old stack all the same");
  add_fix_options(cmd, v.migrate.fix, v);
}

Outcome run_migrate(Values& v, CLI::App&) {
  if (!v.from.empty()) v.migrate.fix.from = v.from;
  v.migrate.fix.events = events_format(v.events);
  if (v.migrate.to.empty() && !v.migrate.resume && !v.migrate.finish)
    return fail(Exit::usage, "migrate needs --to nvidia|amd (or --resume, --finish)");
  return cmd_migrate(v.migrate);
}

void add_undo(CLI::App& cmd, Values& v) {
  cmd.add_flag("-y,--yes", v.undo.yes, "Do not ask first");
  add_events(cmd, v.events);
  cmd.add_option("--root", v.undo.root, "For tests: the root the apply ran in (fix --root)")
      ->type_name("DIR");
  cmd.add_option("--state", v.undo.state,
                 "The state file of the apply to undo (as root: only one of root's own records)")
      ->type_name("FILE")
      ->check(k_not_empty);
  auto* script = cmd.add_option("--script", v.undo.script,
                                "Undo the apply of this script id (its runs in root's journal)")
                     ->check(k_not_empty);
  cmd.add_option("--run", v.undo.run, "With --script: only this run of it")
      ->check(k_not_empty)
      ->needs(script);
}

Outcome run_undo(Values& v, CLI::App&) {
  v.undo.events = events_format(v.events);
  return cmd_undo(v.undo);
}

// fleet and diff: many nodes compared, and one machine's two reports (docs/fleet.md, "Comparing nodes").
// What both write: text, JSON or a page, to stdout or a file.
void add_comparison_output(CLI::App& cmd, std::string& format, std::string& output) {
  add_format(cmd, format, {"text", "json", "html"});
  add_output(cmd, output, "Write to this file (replaced atomically) instead of stdout");
}

void add_fleet(CLI::App& cmd, Values& v) {
  FleetOptions& f = v.fleet;
  cmd.add_option("paths", f.paths, "Reports (.json), bundles, snapshot folders, or folders of them")
      ->type_name("PATH")
      ->required()
      ->check(k_not_empty);
  add_comparison_output(cmd, f.format, f.output);
  cmd.add_flag("-v,--verbose", f.verbose, "List every node, every name and what agrees");
  cmd.add_flag("--strict", f.strict, "Exit 1 on a warning or a drifting property too");
  cmd.add_flag("--rejudge", f.rejudge,
               "Judge snapshots and bundles with this gpudoctor instead of reading their report.json");
  cmd.add_option("-j,--jobs", f.jobs, "Reading threads (default: one per core)")->check(CLI::Range(1, 256));
  add_color(cmd, v);
}

Outcome run_fleet(Values& v, CLI::App&) {
  v.fleet.color = color_mode(v.color);
  return cmd_fleet(v.fleet);
}

void add_diff(CLI::App& cmd, Values& v) {
  DiffOptions& d = v.diff;
  cmd.add_option("before", d.before,
                 "The earlier snapshot, bundle or report (with --last-good: the later one)")
      ->type_name("PATH")
      ->check(k_not_empty);
  cmd.add_option("after", d.after, "The later one")->type_name("PATH")->check(k_not_empty);
  add_comparison_output(cmd, d.format, d.output);
  cmd.add_flag("--force", d.force,
               "Compare even when the two are not one machine (another host name, no GPU in common)");
  cmd.add_flag("--last-good", d.last_good,
               "Compare the newest kept report without an error with this machine now (or the one PATH)");
  cmd.add_flag("--last", d.last, "Compare the newest kept report with this machine now (or the one PATH)");
  add_history_dir(cmd, d.history_dir, "With --last-good or --last: the history in DIR instead of root's");
  cmd.add_option("--python", d.pythons, "For the check of now: also inspect this python3 (repeatable)")
      ->type_name("FILE");
  cmd.add_option("--timeout", d.timeout_ms, "For the check of now: time limit of each vendor tool, in ms")
      ->check(CLI::Range(100, 600000));
  add_color(cmd, v);
}

Outcome run_diff(Values& v, CLI::App&) {
  DiffOptions& d = v.diff;
  d.color = color_mode(v.color);
  if (d.last_good && d.last) return fail(Exit::usage, "diff: --last-good or --last, not both");
  if (d.last_good || d.last) {
    if (!d.after.empty())
      return fail(Exit::usage, "diff {}: one PATH at most (the later side; without one, this machine now)",
                  d.last_good ? "--last-good" : "--last");
    d.after = std::exchange(d.before, std::string());
  } else if (d.after.empty()) {
    return fail(Exit::usage, "diff: two PATHs (before and after), or --last-good / --last with one at most");
  }
  return cmd_diff(d);
}

void add_history(CLI::App& cmd, Values& v) {
  add_history_dir(cmd, v.history.history_dir, "The history in DIR instead of root's");
  add_format(cmd, v.history.format, {"text", "json"});
}

Outcome run_history(Values& v, CLI::App&) {
  return cmd_history(v.history);
}

// Hidden: the bash completion script, generated from this table, at build time for the package
// (cmake/packaging.cmake).
void add_completion(CLI::App& cmd, Values& v) {
  cmd.add_option("shell", v.completion_shell, "bash")->required()->check(CLI::IsMember({"bash"}));
}

Outcome run_completion(Values&, CLI::App& app) {
  auto cat = load_catalogue();
  if (!cat) return fail(Exit::internal, "{}", cat.error());
  cli::CompletionIds ids;
  for (const auto& check : cat->checks)
    ids.checks.push_back(check.id);
  for (const auto& fix : cat->fixes)
    ids.fixes.push_back(fix.id);
  std::fputs(cli::bash_completion(app, ids).c_str(), stdout);
  return Exit::ok;
}

struct Subcommand {
  const char* name;
  const char* about;
  void (*add)(CLI::App&, Values&);
  Outcome (*run)(Values&, CLI::App& app); // app: the whole command line
  bool hidden = false;                    // not in --help nor the completion
};

const Subcommand k_subcommands[] = {
    {"check", "Inspect this machine (or a snapshot) and report problems", add_check, run_check},
    {"bundle", "Record everything the checks read into one redacted archive", add_bundle, run_bundle},
    {"probe", "Build and run the GPU probes and judge what they measure", add_probe, run_probe},
    {"explain", "Say what a check looks at, why it matters and how to fix it", add_explain, run_explain},
    {"fix", "List the fixes for this machine, or print (or apply) one's script", add_fix, run_fix},
    {"migrate", "One staged plan to move this machine to the other vendor", add_migrate, run_migrate},
    {"undo", "Restore the files the last --apply edited; say how to reinstall what it removed", add_undo,
     run_undo},
    {"fleet", "Compare many nodes' reports: what differs, the odd ones out, who fails what", add_fleet,
     run_fleet},
    {"diff", "What changed on one machine between two snapshots, bundles or reports", add_diff, run_diff},
    {"history", "The reports kept on this machine (check --history; the timer)", add_history, run_history},
    {"completion", "Print a shell completion script", add_completion, run_completion, true},
};

// Options a subcommand accepts but can never use: scripts pass them (the options are shared), so they parse
// as before, are hidden from --help and the completion, and a warning names them when given.
struct Deprecated {
  std::string_view subcommand, option, why;
};
constexpr Deprecated k_deprecated[] = {
    {"bundle", "--color", "nothing bundle prints is coloured"},
    {"fix", "--color", "a fix script and the list of fixes are never coloured"},
    {"migrate", "--color", "a migration script is never coloured"},
    {"fix", "--probe-timeout", "fix runs no GPU probe"},
    {"migrate", "--probe-timeout", "migrate runs no GPU probe"},
};

// Options that only do something together with another: given without it, a warning says so.
struct Needs {
  std::string_view subcommand, option;
  std::array<std::string_view, 3> any_of; // options of the same subcommand; "--format=npd": with that value
};
constexpr Needs k_needs[] = {
    {"check", "--max-output-length", {"--format=npd"}},
    {"check", "--probe-timeout", {"--probes"}},
    {"check", "--history-max-reports", {"--history", "--history-dir"}},
    {"check", "--history-max-mib", {"--history", "--history-dir"}},
    {"diff", "--history-dir", {"--last-good", "--last"}},
    {"diff", "--python", {"--last-good", "--last"}},
    {"diff", "--timeout", {"--last-good", "--last"}},
    {"bundle", "--probe-timeout", {"--probes"}},
    {"bundle", "--upload-method", {"--upload"}},
    {"bundle", "--ca-file", {"--upload"}},
    {"bundle", "--upload-timeout", {"--upload"}},
    {"fix", "--yes", {"--apply"}},
    {"migrate", "--yes", {"--apply", "--resume", "--finish"}},
    {"fix", "--events", {"--apply"}},
    {"migrate", "--events", {"--apply", "--resume", "--finish"}},
};

// Options that another one given with them makes pointless: a warning says which one wins and why. The
// option "*" stands for every other option of the subcommand.
struct Overridden {
  std::string_view subcommand, option, by, why;
};
constexpr std::string_view k_resumed = "the machine's unfinished migration goes on as it was planned";
constexpr Overridden k_overridden[] = {
    {"migrate", "--to", "--resume", k_resumed},
    {"migrate", "--from", "--resume", k_resumed},
    {"migrate", "--emit", "--resume", k_resumed},
    {"migrate", "--mirror", "--resume", k_resumed},
    {"migrate", "--driver", "--resume", k_resumed},
    {"migrate", "--cuda", "--resume", k_resumed},
    {"migrate", "--rocm", "--resume", k_resumed},
    {"migrate", "--torch", "--resume", k_resumed},
    {"migrate", "--gpu", "--resume", k_resumed},
    {"migrate", "--remove-stack-of-present-gpu", "--resume", k_resumed},
    {"migrate", "--unhold", "--resume", k_resumed},
    {"migrate", "--stop-gpu-users", "--resume", k_resumed},
    {"migrate", "--render-all", "--resume", k_resumed},
    {"migrate", "--to", "--finish", "--finish closes the machine's migration"},
    {"migrate", "--apply", "--finish", "--finish closes the machine's migration"},
    {"migrate", "--resume", "--finish", "--finish closes the machine's migration"},
    {"fix", "--emit", "--apply", "--apply keeps the script in gpudoctor's state folder and runs it"},
    {"migrate", "--emit", "--apply", "--apply keeps the script in gpudoctor's state folder and runs it"},
    {"check", "*", "--list", "it prints the ids and titles of the checks and runs none"},
};

// Whether `option` ("--upload", or "--format=npd" for that value) was given to `cmd`.
bool given(const CLI::App& cmd, std::string_view option) {
  if (option.empty()) return false;
  auto eq = option.find('=');
  const CLI::Option* opt = cmd.get_option(std::string(option.substr(0, eq)));
  if (opt->count() == 0) return false;
  return eq == std::string_view::npos || opt->as<std::string>() == option.substr(eq + 1);
}

// "--apply", "--apply or --resume", "--apply, --resume or --finish".
std::string alternatives(const std::array<std::string_view, 3>& any_of) {
  std::vector<std::string_view> names;
  for (auto n : any_of)
    if (!n.empty()) names.push_back(n);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  return out;
}

// The options of `cmd` given that `o` overrides: its one option, or with "*" every other one given.
std::vector<std::string> overridden_options(const CLI::App& cmd, const Overridden& o) {
  if (o.option != "*")
    return given(cmd, o.option) ? std::vector{std::string(o.option)} : std::vector<std::string>{};
  std::vector<std::string> out;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue; // every option here has a long name
    std::string name = "--" + opt->get_lnames().front();
    if (name != o.by) out.push_back(name);
  }
  return out;
}

// Hides the deprecated options of `cmd` (CLI11 hides an option of the empty group; so does the completion).
void hide_deprecated(CLI::App& cmd) {
  for (const auto& d : k_deprecated)
    if (d.subcommand == cmd.get_name()) cmd.get_option(std::string(d.option))->group("");
}

// The warnings for options of `cmd` given where they do nothing; on stderr, before the subcommand runs.
void warn_unused(const CLI::App& cmd) {
  for (const auto& d : k_deprecated)
    if (d.subcommand == cmd.get_name() && given(cmd, d.option))
      diag::warning("{} {} is ignored ({}) and deprecated: drop it", d.subcommand, d.option, d.why);
  for (const auto& n : k_needs)
    if (n.subcommand == cmd.get_name() && given(cmd, n.option) &&
        std::ranges::none_of(n.any_of, [&](std::string_view o) { return given(cmd, o); }))
      diag::warning("{} {} has no effect without {}", n.subcommand, n.option, alternatives(n.any_of));
  for (const auto& o : k_overridden) {
    if (o.subcommand != cmd.get_name() || !given(cmd, o.by)) continue;
    for (const std::string& option : overridden_options(cmd, o))
      diag::warning("{} {} is ignored with {}: {}", o.subcommand, option, o.by, o.why);
  }
}

// What stdout could not take (a full disk, /dev/full, a closed pipe) shows only when it is flushed: a run
// whose output was lost exits 2, as for any output that cannot be written (shared/spec/report-v1.md).
int with_stdout_written(int status) {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return status;
  return diag::finish(fail(Exit::usage, "cannot write the output: {}", std::strerror(errno)));
}

int run_command(int argc, char** argv);

// fix's and migrate's --driver, --cuda and --rocm say which versions the planner picks: read from its tables
// when help is printed (loading them is not every command's cost).
void describe_versions(CLI::App& app) {
  VersionHelp help = version_help();
  auto planners = app.get_subcommands(
      [](const CLI::App* a) { return a->get_name() == "fix" || a->get_name() == "migrate"; });
  for (CLI::App* cmd : planners)
    for (auto [option, text] :
         {std::pair{"--driver", &help.driver}, {"--cuda", &help.cuda}, {"--rocm", &help.rocm}})
      if (CLI::Option* o = cmd->get_option_no_throw(option)) o->description(*text);
}

// The long options of `cmd` ("--format"), for "did you mean".
std::vector<std::string> long_options(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : cmd.get_options())
    for (const auto& name : opt->get_lnames())
      out.push_back("--" + name);
  return out;
}

// What CLI11 could not place, said as git says it: the word that was not understood, the nearest one that
// would be, and where the list is. Nothing when CLI11's own message says it better (a bad value, a missing
// argument).
std::optional<Failure> not_understood(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  auto subs = app.get_subcommands();
  if (subs.empty()) {
    // No subcommand was recognised: the first word is the one not understood.
    if (argc < 2 ||
        (!dynamic_cast<const CLI::RequiredError*>(&e) && !dynamic_cast<const CLI::ExtrasError*>(&e)))
      return std::nullopt;
    std::string word = argv[1];
    if (word.starts_with("-"))
      return Failure{
          Exit::usage,
          fmt::format("{} is no option of gpudoctor: a subcommand comes first (gpudoctor --help lists "
                      "them)",
                      word.substr(0, word.find('='))),
          {}};
    std::vector<std::string> names;
    for (const auto& sub : k_subcommands)
      if (!sub.hidden) names.emplace_back(sub.name);
    return Failure{
        Exit::usage,
        fmt::format("{} is no subcommand{} (gpudoctor --help lists them)", word, did_you_mean(word, names)),
        {}};
  }
  if (!dynamic_cast<const CLI::ExtrasError*>(&e)) return std::nullopt;
  const CLI::App& cmd = *subs.front();
  std::vector<std::string> extras = cmd.remaining();
  if (extras.empty()) return std::nullopt;
  auto option =
      std::find_if(extras.begin(), extras.end(), [](const std::string& w) { return w.starts_with("-"); });
  std::string word = option != extras.end() ? option->substr(0, option->find('=')) : extras.front();
  if (option == extras.end())
    return Failure{Exit::usage,
                   fmt::format("{}: {} was not expected (gpudoctor {} --help says what it takes)",
                               cmd.get_name(), word, cmd.get_name()),
                   {}};
  return Failure{Exit::usage,
                 fmt::format("{}: {} is no option{} (gpudoctor {} --help lists them)", cmd.get_name(), word,
                             did_you_mean(word, long_options(cmd)), cmd.get_name()),
                 {}};
}

} // namespace

int main(int argc, char** argv) {
  return with_stdout_written(run_command(argc, argv));
}

namespace {

int run_command(int argc, char** argv) {
  gpudoctor::start_lifecycle(); // first: signals, the reaper, stale temporary folders (before any thread)
  gpudoctor::remember_arguments(argc, argv); // a handoff to root through sudo repeats them
  // Messages on a person's terminal wrap to its width, and long runs show progress there; a log gets lines.
  if (gpudoctor::terminal::is_terminal(STDERR_FILENO))
    gpudoctor::diag::to_terminal(gpudoctor::terminal::columns(STDERR_FILENO));
  // Named, not argv[0]: the man page (help2man) and the completion script show this name.
  CLI::App app{"gpudoctor: what is wrong with this GPU machine, and how to fix it", "gpudoctor"};
  app.set_version_flag("--version", build_info::describe());
  app.require_subcommand(1);

  // Bare `gpudoctor` does a doctor's job: it checks this machine (git and brew print their help; a doctor's
  // first run should diagnose). --help lists the rest.
  std::vector<char*> args(argv, argv + argc);
  char check_word[] = "check";
  if (argc == 1) {
    diag::note("no subcommand given: running `gpudoctor check` (`gpudoctor --help` lists the others)");
    args.push_back(check_word);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();

  Values values;
  std::vector<std::pair<CLI::App*, const Subcommand*>> commands;
  for (const auto& sub : k_subcommands) {
    CLI::App* cmd = app.add_subcommand(sub.name, sub.about);
    if (sub.hidden) cmd->group("");
    sub.add(*cmd, values);
    hide_deprecated(*cmd);
    commands.emplace_back(cmd, &sub);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 quotes what it did not take (an unknown argument, a bad value) as it was typed: its message is
    // one line, escaped like every other (its own lines around it, --help and --version stay as they are).
    if (auto why = not_understood(app, e, argc, argv)) return diag::finish(std::unexpected(*why));
    std::ostringstream out, err;
    if (e.get_name() == "CallForHelp" || e.get_name() == "CallForAllHelp") describe_versions(app);
    int code = app.exit(e, out, err);
    std::string text = err.str(), what = e.what();
    if (auto at = text.find(what); !what.empty() && at != std::string::npos)
      text.replace(at, what.size(), escape::one_line(what));
    std::cout << escape::terminal(out.str());
    if (!text.empty()) diag::block(text);
    return exit_code(code == 0 ? Exit::ok : Exit::usage);
  }
  try {
    for (const auto& [cmd, sub] : commands)
      if (*cmd) {
        warn_unused(*cmd);
        return diag::finish(sub->run(values, app));
      }
  } catch (const std::exception& e) {
    return diag::finish(fail(Exit::internal, "internal error: {}", e.what()));
  }
  return exit_code(Exit::usage);
}

} // namespace
