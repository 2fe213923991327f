// gpudoctor diff: one machine's two snapshots, bundles or reports compared. Snapshots and bundles are judged
// now (both sides by this gpudoctor, with their package lists); reports are read as they are.
#include "app/commands.hpp"
#include "app/compare_output.hpp"
#include "app/report_input.hpp"
#include "app/terminal_text.hpp"
#include "fleet/report_diff.hpp"
#include "report/diff_render.hpp"

#include <fmt/format.h>

namespace gpudoctor {

Outcome cmd_diff(const DiffOptions& opt) {
  InputReader reader(InputOptions{true, true});
  auto before = reader.read(opt.before);
  if (!before) return fail(Exit::usage, "{}: {}", opt.before, before.error());
  auto after = reader.read(opt.after);
  if (!after) return fail(Exit::usage, "{}: {}", opt.after, after.error());
  auto mismatch = machine_mismatch(*before, *after);
  if (mismatch && !opt.force)
    return fail(Exit::usage, "{} and {} are not one machine: {} (--force compares them anyway)", opt.before,
                opt.after, *mismatch);
  ReportDiff diff = diff_reports(*before, *after);
  if (mismatch) diff.notes.insert(diff.notes.begin(), fmt::format("{}: compared with --force", *mismatch));
  std::string out = opt.format == "json"   ? dump_json(diff_to_json(diff)) + "\n"
                    : opt.format == "html" ? render_diff_html(diff)
                                           : render_diff_text(diff, use_color(opt.color, opt.output));
  if (auto written = emit(out, opt.output, opt.format == "text"); !written)
    return std::unexpected(written.error());
  return diff.empty() ? Exit::ok : Exit::findings;
}

} // namespace gpudoctor
