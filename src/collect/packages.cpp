#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "parse/parsers_system.hpp"
#include "system/input_limits.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor {

void collect_packages(SystemView& view, PackageFacts& packages) {
  const std::string dpkg_status = "/var/lib/dpkg/status";
  if (auto why = view.left_out(dpkg_status)) { // by the live run this snapshot recorded
    packages.manager = "dpkg";
    packages.source = dpkg_status;
    packages.over_limit = *why;
    return;
  }
  if (auto status = view.read_file(dpkg_status)) {
    packages.manager = "dpkg";
    packages.source = dpkg_status;
    // Counted before it is parsed: parsing 150,000 paragraphs costs hundreds of MB (a snapshot that lists
    // this many was refused when it was opened).
    if (std::size_t count = dpkg_package_count(*status); count > k_max_packages) {
      packages.over_limit = fmt::format("{} lists {} packages, more than the {} gpudoctor reads",
                                        packages.source, count, k_max_packages);
      view.leave_out(dpkg_status, packages.over_limit);
      return;
    }
    packages.readable = true;
    auto records = parse::dpkg_records(*status); // read once: 1.2 MB on a desktop is 10 ms a pass
    packages.installed = parse::dpkg_installed_versions(records);
    packages.depends = parse::dpkg_installed_depends(records);
  }
  // rpm's database is not a text file: ask rpm itself, on RPM systems only.
  if (!packages.readable && view.exists("/var/lib/rpm")) {
    CommandSpec spec = keyed_command_spec(KeyedCommand::rpm_qa, std::chrono::milliseconds(5000));
    auto r = view.run(spec);
    if (r.ok()) {
      packages.readable = true;
      packages.manager = "rpm";
      packages.source = "cmd rpm-qa";
      // A name installed more than once (kernel, kernel-devel) is at its newest, in rpm's order.
      packages.installed = parse::rpm_qa_versions(r.out);
    }
  }
}

} // namespace gpudoctor
