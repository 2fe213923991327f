// GPU vendor package repositories and PyTorch wheel indexes the machine is configured for: apt sources
// (/etc/apt/sources.list, sources.list.d/*.list and *.sources), dnf .repo files, pip index settings.
// Only sources whose host is in the knowledge table vendor_repos are kept.
#include "collect/collectors.hpp"
#include "parse/parsers_system.hpp"
#include "system/config_files.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

constexpr const char* k_apt_list = "/etc/apt/sources.list";
constexpr const char* k_apt_dir = "/etc/apt/sources.list.d";
constexpr const char* k_yum_dir = "/etc/yum.repos.d";

// Every source is kept here; link_facts keeps those of a GPU vendor or a PyTorch index (knowledge
// vendor_repos) and says whose they are.
void add_source(RepoFacts& repos, RepoSource s) {
  repos.sources.push_back(std::move(s));
}

void collect_apt(SystemView& view, RepoFacts& repos) {
  std::vector<std::string> files = {k_apt_list};
  if (auto names = view.list_dir(k_apt_dir))
    for (const auto& name : *names)
      if (text::ends_with(name, ".list") || text::ends_with(name, ".sources"))
        files.push_back(std::string(k_apt_dir) + "/" + name);
  for (const auto& file : files) {
    auto content = view.read_file(file);
    if (!content) continue;
    repos.files.push_back(file);
    for (const auto& src : parse::apt_sources(*content, file)) {
      RepoSource s;
      s.kind = "apt";
      s.uri = src.uri;
      s.suite = src.suite;
      s.origin = file_source(file, src.line);
      s.enabled = src.enabled;
      add_source(repos, std::move(s));
    }
  }
}

void collect_dnf(SystemView& view, RepoFacts& repos) {
  auto names = view.list_dir(k_yum_dir);
  if (!names) return;
  for (const auto& name : *names) {
    if (!text::ends_with(name, ".repo")) continue;
    std::string file = std::string(k_yum_dir) + "/" + name;
    auto content = view.read_file(file);
    if (!content) continue;
    repos.files.push_back(file);
    for (const auto& repo : parse::yum_repos(*content, file)) {
      std::vector<std::string> urls = repo.baseurls;
      for (const auto* other : {&repo.mirrorlist, &repo.metalink})
        if (!other->empty()) urls.push_back(*other);
      for (const auto& url : urls) {
        RepoSource s;
        s.kind = "dnf";
        s.uri = url;
        s.origin = file_source(file, repo.line);
        s.enabled = repo.is_enabled();
        add_source(repos, std::move(s));
      }
    }
  }
}

// pip.conf (INI): index-url / extra-index-url in any section, values separated by white space, continued on
// indented lines. pip reads [global], [install] and [download]; the others are rare enough to take as well.
void read_pip_conf(const std::string& file, const std::string& content, RepoFacts& repos) {
  auto lines = text::lines(content);
  bool continuing = false;
  int key_line = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& raw = lines[i];
    std::string line = text::trim(raw);
    bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
    std::string values;
    if (continuing && indented && !line.empty() && line[0] != '#' && line[0] != ';') {
      values = line;
    } else {
      continuing = false;
      auto eq = line.find_first_of("=:");
      if (eq == std::string::npos || line.empty() || line[0] == '#' || line[0] == ';' || line[0] == '[')
        continue;
      std::string key = text::lower(text::trim(line.substr(0, eq)));
      std::replace(key.begin(), key.end(), '_', '-');
      if (key != "index-url" && key != "extra-index-url") continue;
      continuing = true;
      key_line = static_cast<int>(i) + 1;
      values = line.substr(eq + 1);
    }
    for (const auto& url : text::split(values, ' '))
      for (const auto& u : text::split(url, '\t')) {
        RepoSource s;
        s.kind = "pip";
        s.uri = text::trim(u);
        s.origin = file_source(file, key_line);
        if (!s.uri.empty()) add_source(repos, std::move(s));
      }
  }
}

void collect_pip(SystemView& view, RepoFacts& repos) {
  for (const char* var : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"})
    if (auto value = view.env(var))
      for (const auto& url : text::split(*value, ' ')) {
        RepoSource s;
        s.kind = "pip";
        s.uri = url;
        s.origin = std::string("env ") + var;
        add_source(repos, std::move(s));
      }
  std::vector<std::string> files = config_paths(ConfigUse::pip, user_home(view));
  if (auto venv = view.env("VIRTUAL_ENV"); venv && !venv->empty()) files.push_back(*venv + "/pip.conf");
  for (const auto& file : files)
    if (auto content = view.read_file(file)) {
      repos.files.push_back(file);
      read_pip_conf(file, *content, repos);
    }
}

} // namespace

void collect_repos(SystemView& view, RepoFacts& repos) {
  // Derivatives (Linux Mint, Pop!_OS) name their Ubuntu base here; apt sources of vendors use that.
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    auto text = view.read_file(path);
    if (!text) continue;
    for (const auto& [key, value] : text::key_values(*text))
      if (key == "UBUNTU_CODENAME" && !value.empty()) repos.ubuntu_codename = {value, path};
    break;
  }
  collect_apt(view, repos);
  collect_dnf(view, repos);
  collect_pip(view, repos);
}

} // namespace gpudoctor
