// The distributions installed in each interpreter's site folders, from the *.dist-info / *.egg-info folder
// names alone (one listing per folder, nothing imported, no METADATA read).
#include "collect/collectors.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

std::string normalise(std::string name) {
  name = text::lower(name);
  std::replace(name.begin(), name.end(), '_', '-');
  std::replace(name.begin(), name.end(), '.', '-');
  return name;
}

// "nvidia_cublas_cu12-12.6.4.1.dist-info" -> {nvidia-cublas-cu12, 12.6.4.1}; wheel names escape '-' in the
// name as '_', so the first '-' ends it. "flash_attn-2.6.3-py3.10.egg-info" drops the python tag;
// "mypkg.egg-info" (a development install) has no version.
std::optional<PythonDist> dist_of(const std::string& entry, const std::string& folder) {
  std::string stem;
  bool egg = false;
  if (text::ends_with(entry, ".dist-info"))
    stem = entry.substr(0, entry.size() - 10);
  else if (text::ends_with(entry, ".egg-info")) {
    stem = entry.substr(0, entry.size() - 9);
    egg = true;
  } else
    return std::nullopt;
  PythonDist d;
  d.folder = folder;
  d.entry = entry;
  auto dash = stem.find('-');
  d.name = normalise(stem.substr(0, dash));
  if (dash != std::string::npos) {
    d.version = stem.substr(dash + 1);
    if (egg)
      if (auto py = d.version.find("-py"); py != std::string::npos) d.version = d.version.substr(0, py);
  }
  if (d.name.empty()) return std::nullopt;
  return d;
}

bool is_site_folder(const std::string& p) {
  return text::ends_with(p, "/site-packages") || text::ends_with(p, "/dist-packages");
}

} // namespace

void collect_python_distributions(SystemView& view, PythonFacts& python) {
  for (auto& env : python.envs) {
    if (!env.error.empty()) continue;
    std::vector<std::string> seen;
    for (const auto& entry : env.sys_path) {
      std::string folder = entry;
      while (folder.size() > 1 && folder.back() == '/')
        folder.pop_back();
      if (!is_site_folder(folder) || std::find(seen.begin(), seen.end(), folder) != seen.end()) continue;
      seen.push_back(folder);
      auto names = view.list_dir(folder);
      if (!names) continue;
      for (const auto& name : *names)
        if (auto d = dist_of(name, folder)) env.distributions.push_back(std::move(*d));
    }
  }
}

} // namespace gpudoctor
