// dnf/yum ".repo" files: INI sections "[id]" with "key=value" lines; a line that starts with whitespace
// continues the previous value (baseurl lists). '#' and ';' start comment lines.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_repos = 10000;

std::optional<bool> boolean(std::string_view v) {
  std::string s = text::lower(detail::trim_view(v));
  if (s == "1" || s == "yes" || s == "true" || s == "on") return true;
  if (s == "0" || s == "no" || s == "false" || s == "off") return false;
  return std::nullopt;
}

// "url1 url2", "url1,url2", one per continuation line.
std::vector<std::string> url_list(std::string_view v) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= v.size(); ++i)
    if (i == v.size() || v[i] == ',' || detail::is_space(v[i])) {
      if (i > start && out.size() < 1000) out.emplace_back(v.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

void finish(YumRepo& r) {
  auto get = [&](const char* k) -> const std::string* {
    auto it = r.values.find(k);
    return it == r.values.end() ? nullptr : &it->second;
  };
  if (auto v = get("name")) r.name = *v;
  if (auto v = get("baseurl")) r.baseurls = url_list(*v);
  if (auto v = get("mirrorlist")) r.mirrorlist = std::string(detail::trim_view(*v));
  if (auto v = get("metalink")) r.metalink = std::string(detail::trim_view(*v));
  if (auto v = get("enabled")) r.enabled = boolean(*v);
  if (auto v = get("gpgcheck")) r.gpgcheck = boolean(*v);
  if (auto v = get("gpgkey")) r.gpgkeys = url_list(*v);
}

} // namespace

std::vector<YumRepo> yum_repos(std::string_view text, std::string_view file) {
  std::vector<YumRepo> out;
  std::string* last = nullptr; // the value a continuation line extends
  bool in_repo = false;
  int n = 0;
  detail::for_each_line(text, [&](std::string_view line) {
    ++n;
    std::string_view t = detail::trim_view(line);
    if (t.empty()) {
      last = nullptr;
      return;
    }
    if (t.front() == '#' || t.front() == ';') return;
    if (t.front() == '[') {
      last = nullptr;
      std::size_t close = t.find(']');
      in_repo = close != std::string_view::npos && close > 1 && out.size() < k_max_repos;
      if (in_repo) {
        // "[main]" in /etc/dnf/dnf.conf or yum.conf holds settings, not a repository.
        std::string id(detail::trim_view(t.substr(1, close - 1)));
        in_repo = !id.empty() && id != "main"; // "[  ]" names no repository
        if (in_repo) out.push_back({.file = std::string(file), .line = n, .id = std::move(id)});
      }
      return;
    }
    if (!in_repo) return;
    if (detail::is_space(line.front()) && last) {
      if (last->size() < 65536) *last += "\n" + std::string(t);
      return;
    }
    std::size_t eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      last = nullptr;
      return;
    }
    auto& values = out.back().values;
    if (values.size() >= 256) return;
    std::string& v = values[text::lower(detail::trim_view(t.substr(0, eq)))];
    v = std::string(detail::trim_view(t.substr(eq + 1)));
    last = &v;
  });
  for (auto& r : out)
    finish(r);
  return out;
}

} // namespace gpudoctor::parse
