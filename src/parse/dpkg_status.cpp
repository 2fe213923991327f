#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

struct Paragraph {
  std::string_view package, version, status;
};

// "want flag status": only "install ok installed" and "hold ok installed" are on disk and wanted;
// "deinstall ok config-files" (removed, config kept) and half-installed states do not count.
bool installed(std::string_view status) {
  return status == "install ok installed" || status == "hold ok installed";
}

} // namespace

std::map<std::string, std::string> dpkg_status(std::string_view text) {
  std::map<std::string, std::string> out;
  Paragraph p;
  auto flush = [&] {
    if (!p.package.empty() && !p.version.empty() && installed(p.status))
      out.emplace(std::string(p.package), std::string(p.version));
    p = {};
  };
  detail::for_each_line(text, [&](std::string_view line) {
    if (detail::trim_view(line).empty()) return flush();
    if (detail::is_space(line.front())) return; // continuation of a multi-line field (Description, Conffiles)
    if (auto v = detail::value_after(line, "Package"))
      p.package = *v;
    else if (auto s = detail::value_after(line, "Status"))
      p.status = *s;
    else if (auto ver = detail::value_after(line, "Version"))
      p.version = *ver;
  });
  flush();
  return out;
}

} // namespace gpudoctor::parse
