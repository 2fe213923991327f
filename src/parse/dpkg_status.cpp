// The installed packages of dpkg's status file, as the collectors want them: views of dpkg_records
// (pkg_relations.cpp), which reads the paragraphs once for everyone.
#include "parse/parsers.hpp"
#include "parse/parsers_system.hpp"

namespace gpudoctor::parse {

namespace {

// "want flag status": only "install ok installed" and "hold ok installed" are on disk and wanted;
// "deinstall ok config-files" (removed, config kept), half-installed and reinstreq states do not count.
bool installed_and_wanted(const DpkgRecord& r) {
  return r.installed() && r.flag == "ok" && (r.want == "install" || r.want == "hold");
}

} // namespace

std::map<std::string, std::string> dpkg_installed_versions(const std::vector<DpkgRecord>& records) {
  std::map<std::string, std::string> out;
  for (const auto& r : records)
    if (installed_and_wanted(r) && !r.version.empty()) out.emplace(r.name, r.version);
  return out;
}

// Pre-Depends and Depends, every alternative of every clause, in the order of the paragraph.
std::map<std::string, std::vector<std::string>>
dpkg_installed_depends(const std::vector<DpkgRecord>& records) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : records) {
    if (!installed_and_wanted(r)) continue;
    std::vector<std::string> names;
    for (const auto& clause : r.clauses)
      names.insert(names.end(), clause.begin(), clause.end());
    out[r.name] = std::move(names);
  }
  return out;
}

std::map<std::string, std::string> dpkg_status(std::string_view text) {
  return dpkg_installed_versions(dpkg_records(text));
}

std::map<std::string, std::vector<std::string>> dpkg_depends(std::string_view text) {
  return dpkg_installed_depends(dpkg_records(text));
}

} // namespace gpudoctor::parse
