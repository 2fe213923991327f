// What decides whether an out-of-tree GPU module loads at boot: `dkms status` (built and installed for which
// kernels) and `mokutil --sb-state` (Secure Boot rejects unsigned modules). Both run as a normal user.
#include "collect/collectors.hpp"
#include "parse/parsers_system.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

ToolRun record(const CommandResult& r, const CommandSpec& spec) {
  ToolRun run = tool_run_of(r, spec);
  if (r.found && !r.ok() && !r.timed_out) {
    std::string said = text::trim(r.err.empty() ? r.out : r.err);
    run.failure = said.size() > 300 ? said.substr(0, 300) + "..." : said;
  }
  return run;
}

void collect_dkms(SystemView& view, const CollectOptions& opt, BootFacts& boot, std::vector<ToolRun>& tools) {
  CommandSpec spec = keyed_command_spec(view, KeyedCommand::dkms_status, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  tools.push_back(record(r, spec));
  tools.back().program = "dkms";
  if (r.timed_out) return;
  auto status = parse::dkms_status(r.out + "\n" + r.err);
  boot.dkms_ran = r.ok() || !status.entries.empty();
  for (const auto& e : status.entries)
    boot.dkms.push_back({e.module, e.version, e.kernel, e.arch, e.state, e.detail});
  boot.dkms_messages = status.messages;
}

void collect_secure_boot(SystemView& view, const CollectOptions& opt, BootFacts& boot,
                         std::vector<ToolRun>& tools) {
  CommandSpec spec = keyed_command_spec(view, KeyedCommand::mokutil_sb_state, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  // mokutil exits 1 on machines without EFI variables and says so: that is an answer, not a failure.
  ToolRun run = tool_run_of(r, spec);
  run.program = "mokutil";
  tools.push_back(run);
  if (r.timed_out) return;
  auto sb = parse::mokutil_sb_state(r.out + "\n" + r.err);
  using State = parse::SecureBoot::State;
  const char* state = sb.state == State::enabled       ? "enabled"
                      : sb.state == State::disabled    ? "disabled"
                      : sb.state == State::unsupported ? "unsupported"
                      : sb.state == State::no_efi      ? "no-efi"
                                                       : nullptr;
  if (!state) return;
  boot.secure_boot = {state, "cmd mokutil-sb-state"};
  boot.secure_boot_line = sb.line;
  boot.shim_validation_disabled = sb.shim_validation_disabled;
}

} // namespace

void collect_boot(SystemView& view, const CollectOptions& opt, BootFacts& boot, std::vector<ToolRun>& tools) {
  collect_dkms(view, opt, boot, tools);
  collect_secure_boot(view, opt, boot, tools);
}

} // namespace gpudoctor
