#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

struct Paragraph {
  std::string_view package, version, status, depends, pre_depends;
};

// "want flag status": only "install ok installed" and "hold ok installed" are on disk and wanted;
// "deinstall ok config-files" (removed, config kept) and half-installed states do not count.
bool installed(std::string_view status) {
  return status == "install ok installed" || status == "hold ok installed";
}

// Calls `fn` with the paragraph of each installed package, in file order.
template <class Fn> void for_each_installed(std::string_view text, Fn fn) {
  Paragraph p;
  auto flush = [&] {
    if (!p.package.empty() && installed(p.status)) fn(p);
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
    else if (auto d = detail::value_after(line, "Depends"))
      p.depends = *d;
    else if (auto pd = detail::value_after(line, "Pre-Depends"))
      p.pre_depends = *pd;
  });
  flush();
}

// "libc6 (>= 2.38), libamdhip64-5 (>= 4.5.2) | foo:any" -> libc6, libamdhip64-5, foo
void add_names(std::string_view field, std::vector<std::string>& names) {
  std::size_t start = 0;
  while (start <= field.size()) {
    std::size_t end = field.find_first_of(",|", start);
    if (end == std::string_view::npos) end = field.size();
    std::string_view item = detail::trim_view(field.substr(start, end - start));
    item = item.substr(0, item.find_first_of(" (:["));
    if (!item.empty()) names.emplace_back(item);
    start = end + 1;
  }
}

} // namespace

std::map<std::string, std::string> dpkg_status(std::string_view text) {
  std::map<std::string, std::string> out;
  for_each_installed(text, [&](const Paragraph& p) {
    if (!p.version.empty()) out.emplace(std::string(p.package), std::string(p.version));
  });
  return out;
}

std::map<std::string, std::vector<std::string>> dpkg_depends(std::string_view text) {
  std::map<std::string, std::vector<std::string>> out;
  for_each_installed(text, [&](const Paragraph& p) {
    std::vector<std::string> names;
    add_names(p.pre_depends, names);
    add_names(p.depends, names);
    out[std::string(p.package)] = std::move(names);
  });
  return out;
}

} // namespace gpudoctor::parse
