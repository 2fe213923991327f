// The kernel log of this boot and of the previous one (snapshot keys `dmesg`, `journal-kernel-previous`):
// `dmesg` where the kernel lets this user read it, the journal otherwise; the last 4 MiB of each; grouped
// into GPU events (parse/kernel_log.hpp). The log itself is never kept in the facts.
#include "parse/kernel_log.hpp"

#include "collect/collectors.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <future>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// dmesg_restrict=1 keeps the kernel buffer from users without CAP_SYSLOG (Debian, Ubuntu): ask the journal.
bool dmesg_allowed(SystemView& view) {
  auto restrict_text = view.read_file(paths::dmesg_restrict);
  return !restrict_text || text::trim(*restrict_text) != "1" || view.identity().uid == 0;
}

CommandSpec log_spec(KeyedCommand command, const CollectOptions& opt) {
  CommandSpec spec = keyed_command_spec(command, opt.tool_timeout);
  spec.keep_tail = true; // the newest messages matter most
  return spec;
}

// What a failed run said, in one line: "dmesg: read kernel buffer failed: Operation not permitted".
std::string said(const CommandResult& r) {
  std::string program = r.argv.empty() ? r.key : r.argv[0];
  if (!r.found && !r.untrusted.empty())
    return fmt::format("{}: not run as root: {} ({})", program, r.untrusted.front().path,
                       r.untrusted.front().why);
  if (!r.found) return program + ": not installed";
  if (r.timed_out) return program + ": killed at its time limit";
  std::string all = r.err + "\n" + r.out;
  // journalctl's hint for users outside adm / systemd-journal: the kernel's messages are not theirs to see.
  if (text::contains(all, "Users in groups"))
    return program + ": this user sees no kernel messages (only members of adm or systemd-journal do)";
  std::string first;
  for (const auto& line : text::lines(all)) {
    std::string t = text::trim(line);
    if (!t.empty() && t != "-- No entries --") {
      first = t;
      break;
    }
  }
  if (first.empty())
    first = r.ok() ? "no messages" : "exit status " + std::to_string(r.exit_code.value_or(-1));
  first = first.substr(0, 200);
  return text::starts_with(first, program + ":") ? first : program + ": " + first;
}

struct Read {
  CommandResult run;
  parse::KernelLogScan scan;
  bool ok = false; // it answered with messages
};

Read read_log(SystemView& view, const CommandSpec& spec, int boot) {
  Read r{view.run(spec), {}, false};
  if (r.run.found && !r.run.timed_out) {
    r.scan = parse::kernel_log(r.run.out, boot);
    r.ok = r.run.ok() && r.scan.timed_records > 0;
  }
  return r;
}

void keep(KernelLogFacts& log, parse::KernelLogScan& scan) {
  log.records += scan.timed_records;
  log.events_dropped += scan.dropped;
  for (auto& e : scan.events) {
    if (log.events.size() >= parse::k_max_kernel_event_groups) {
      ++log.events_dropped;
      continue;
    }
    log.events.push_back(std::move(e));
  }
}

ToolRun tool_of(const CommandResult& r, const CommandSpec& spec) {
  ToolRun t = tool_run_of(r, spec); // only a time limit is reported (tool.timeout); a refusal is a fact
  if (!r.argv.empty()) t.program = r.argv[0];
  return t;
}

} // namespace

// Only a persistent journal keeps the previous boot: its files lie in /var/log/journal/<machine id>/. An
// empty or missing folder (a container image's, or journald keeping them under /run) has nothing to give.
bool persistent_journal(SystemView& view) {
  auto names = view.list_dir("/var/log/journal");
  return names && !names->empty();
}

void collect_kernel_log(SystemView& view, const CollectOptions& opt, KernelLogFacts& log,
                        std::vector<ToolRun>& tools) {
  // The previous boot is read beside this one: journalctl takes tens of milliseconds just to start.
  auto previous_spec = log_spec(KeyedCommand::journal_kernel_previous, opt);
  std::future<Read> previous;
  if (persistent_journal(view))
    previous = std::async(std::launch::async, [&] { return read_log(view, previous_spec, -1); });
  std::vector<std::string> refusals;
  std::optional<Read> current;
  if (dmesg_allowed(view)) {
    auto spec = log_spec(KeyedCommand::dmesg, opt);
    current = read_log(view, spec, 0);
    if (current->run.found) tools.push_back(tool_of(current->run, spec));
    if (!current->ok) refusals.push_back(said(current->run));
  } else {
    refusals.push_back("dmesg: not readable by this user (kernel.dmesg_restrict = 1)");
  }
  // The journal under the same key: a replay finds the run that answered, as the live machine did.
  if (!current || !current->ok) {
    auto spec = log_spec(KeyedCommand::journal_kernel, opt);
    current = read_log(view, spec, 0);
    if (current->run.found) tools.push_back(tool_of(current->run, spec));
    if (!current->ok) refusals.push_back(said(current->run));
  }
  if (current->ok) {
    log.read = true;
    log.source = "cmd dmesg";
    log.reader = current->run.argv.empty() ? "dmesg" : current->run.argv[0];
    log.truncated = current->run.truncated;
    keep(log, current->scan);
  } else {
    std::vector<std::string> distinct;
    for (const auto& r : refusals)
      if (std::find(distinct.begin(), distinct.end(), r) == distinct.end()) distinct.push_back(r);
    log.why_not = text::join(distinct, "; ");
  }

  if (!previous.valid()) return;
  Read before = previous.get();
  if (before.run.found && before.run.timed_out) tools.push_back(tool_of(before.run, previous_spec));
  if (before.ok) {
    log.previous_read = true;
    log.truncated = log.truncated || before.run.truncated;
    keep(log, before.scan);
  }
}

} // namespace gpudoctor
