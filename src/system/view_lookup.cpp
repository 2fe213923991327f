#include "system/view_lookup.hpp"

#include "util/text.hpp"

namespace gpudoctor {

std::optional<std::string> find_on_path(SystemView& view, const std::string& name) {
  auto path = view.env("PATH");
  if (!path) return std::nullopt;
  for (const auto& dir : text::split(*path, ':')) {
    if (dir.empty() || dir[0] != '/') continue; // relative PATH entries depend on the cwd; skip them
    std::string candidate = dir + "/" + name;
    auto st = view.stat(candidate);
    if (st && st->type == FileType::file) return candidate;
  }
  return std::nullopt;
}

std::string user_home(SystemView& view) {
  std::string home = view.identity().home;
  if (home.empty()) home = view.env("HOME").value_or("");
  while (home.size() > 1 && home.back() == '/')
    home.pop_back();
  return home;
}

std::optional<std::string> final_link_target(SystemView& view, const std::string& path) {
  std::optional<std::string> target;
  std::string current = path;
  for (int hop = 0; hop < 8; ++hop) {
    auto next = view.read_link(current);
    if (!next) break;
    if (!next->empty() && (*next)[0] != '/') *next = current.substr(0, current.find_last_of('/') + 1) + *next;
    target = *next;
    current = *next;
  }
  return target;
}

} // namespace gpudoctor
