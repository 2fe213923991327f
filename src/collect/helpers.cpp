#include "collect/collectors.hpp"
#include "util/text.hpp"

namespace gpudoctor {

ToolRun tool_run_of(const CommandResult& r, const CommandSpec& spec) {
  ToolRun t;
  t.key = spec.key;
  t.program = spec.argv.empty() ? spec.key : spec.argv[0];
  t.found = r.found;
  t.timed_out = r.timed_out;
  t.unkillable = r.unkillable;
  t.exit_code = r.exit_code;
  t.duration_ms = r.duration_ms;
  // A replayed run keeps the limit it had on its machine.
  t.timeout_ms = r.timeout_ms > 0 ? r.timeout_ms : static_cast<long>(spec.timeout.count());
  // A known error line is near either end (rocminfo's before its agents or instead of them, nvidia-smi's
  // before or after its table): the middle of a long output is left out.
  constexpr std::size_t k_end = 32 * 1024;
  auto ends = [&](const std::string& s) {
    return s.size() <= 2 * k_end ? s : s.substr(0, k_end) + "\n" + s.substr(s.size() - k_end);
  };
  t.output = text::strip_ansi(ends(r.out) + "\n" + ends(r.err));
  return t;
}

std::string sbin_program(SystemView& view, const std::string& name) {
  // By name when the PATH has it: as root, the view runs the first copy root can trust (system/root_exec).
  if (find_on_path(view, name)) return name;
  for (const char* dir : {"/usr/sbin/", "/sbin/", "/usr/bin/"})
    if (auto st = view.stat(dir + name); st && st->type == FileType::file) return dir + name;
  return name;
}

CommandSpec keyed_command_spec(SystemView& view, KeyedCommand id, std::chrono::milliseconds timeout) {
  CommandSpec spec = keyed_command_spec(id, timeout);
  if (keyed_command(id).search == ProgramSearch::sbin) spec.argv[0] = sbin_program(view, spec.argv[0]);
  return spec;
}

std::string file_source(const std::string& path, int line) {
  return line > 0 ? path + ":" + std::to_string(line) : path;
}

} // namespace gpudoctor
