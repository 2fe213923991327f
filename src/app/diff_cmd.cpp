// gpudoctor diff: one machine's two snapshots, bundles or reports compared. Snapshots and bundles are judged
// now (both sides by this gpudoctor, with their package lists); reports are read as they are.
#include "app/commands.hpp"
#include "app/compare_output.hpp"
#include "app/report_input.hpp"
#include "fleet/report_diff.hpp"
#include "report/diff_render.hpp"
#include "util/escape.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace gpudoctor {

int cmd_diff(const DiffOptions& opt) {
  InputReader reader(InputOptions{true, true});
  auto before = reader.read(opt.before);
  if (!before) {
    std::fprintf(stderr, "gpudoctor: %s: %s\n", escape::one_line(opt.before).c_str(),
                 escape::one_line(before.error()).c_str());
    return 2;
  }
  auto after = reader.read(opt.after);
  if (!after) {
    std::fprintf(stderr, "gpudoctor: %s: %s\n", escape::one_line(opt.after).c_str(),
                 escape::one_line(after.error()).c_str());
    return 2;
  }
  auto mismatch = machine_mismatch(*before, *after);
  if (mismatch && !opt.force) {
    std::string why =
        fmt::format("gpudoctor: {} and {} are not one machine: {} (--force compares them anyway)", opt.before,
                    opt.after, *mismatch);
    std::fprintf(stderr, "%s\n", escape::one_line(why).c_str());
    return 2;
  }
  ReportDiff diff = diff_reports(*before, *after);
  if (mismatch) diff.notes.insert(diff.notes.begin(), fmt::format("{}: compared with --force", *mismatch));
  std::string out = opt.format == "json"   ? dump_json(diff_to_json(diff)) + "\n"
                    : opt.format == "html" ? render_diff_html(diff)
                                           : render_diff_text(diff, use_color(opt.color, opt.output));
  if (!emit(out, opt.output)) return 2;
  return diff.empty() ? 0 : 1;
}

} // namespace gpudoctor
