#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "util/text.hpp"

namespace gpudoctor {

void collect_packages(SystemView& view, PackageFacts& packages) {
  if (auto status = view.read_file("/var/lib/dpkg/status")) {
    packages.readable = true;
    packages.manager = "dpkg";
    packages.source = "/var/lib/dpkg/status";
    packages.installed = parse::dpkg_status(*status);
    packages.depends = parse::dpkg_depends(*status);
  }
  // rpm's database is not a text file: ask rpm itself, on RPM systems only.
  if (!packages.readable && view.exists("/var/lib/rpm")) {
    CommandSpec spec{"rpm-qa", {"rpm", "-qa", "--queryformat", "%{NAME} %{VERSION}-%{RELEASE}\\n"}};
    auto r = view.run(spec);
    if (r.ok()) {
      packages.readable = true;
      packages.manager = "rpm";
      packages.source = "cmd rpm-qa";
      for (const auto& line : text::lines(r.out)) {
        auto parts = text::split(line, ' ');
        if (parts.size() == 2) packages.installed[parts[0]] = parts[1];
      }
    }
  }
}

} // namespace gpudoctor
